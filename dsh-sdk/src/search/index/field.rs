//! A tool's fields: the parts of it scored apart, and a value for each.

use std::ops::{Index, IndexMut};

/// A part of a tool scored apart: its name (and aliases), its description,
/// its parameters' names, and their descriptions and allowed values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Field {
    Name,
    Description,
    Parameter,
    ParameterText,
}

impl Field {
    /// Every field, in the order scores are summed.
    pub(super) const ALL: [Field; 4] = [
        Field::Name,
        Field::Description,
        Field::Parameter,
        Field::ParameterText,
    ];
}

/// One value for each [`Field`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct PerField<T> {
    pub(super) name: T,
    pub(super) description: T,
    pub(super) parameter: T,
    pub(super) parameter_text: T,
}

impl<T> PerField<T> {
    /// Each field's value passed through `f`.
    pub(super) fn map<U>(self, mut f: impl FnMut(T) -> U) -> PerField<U> {
        PerField {
            name: f(self.name),
            description: f(self.description),
            parameter: f(self.parameter),
            parameter_text: f(self.parameter_text),
        }
    }
}

impl<T> Index<Field> for PerField<T> {
    type Output = T;

    fn index(&self, field: Field) -> &T {
        match field {
            Field::Name => &self.name,
            Field::Description => &self.description,
            Field::Parameter => &self.parameter,
            Field::ParameterText => &self.parameter_text,
        }
    }
}

impl<T> IndexMut<Field> for PerField<T> {
    fn index_mut(&mut self, field: Field) -> &mut T {
        match field {
            Field::Name => &mut self.name,
            Field::Description => &mut self.description,
            Field::Parameter => &mut self.parameter,
            Field::ParameterText => &mut self.parameter_text,
        }
    }
}
