//! The ids the index keeps its tables by: a term's slot and a tool's.

/// A term's slot in the index's term table. A slot freed with its term's
/// last tool goes to the next new term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct TermId(u32);

impl TermId {
    /// The id of the term table's slot `slot`.
    pub(super) fn at(slot: usize) -> TermId {
        TermId(slot as u32)
    }

    /// Its slot in the term table.
    pub(super) fn slot(self) -> usize {
        self.0 as usize
    }
}

/// A tool's slot in the index's tables of tools. A slot freed by a removed
/// tool goes to the next one added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct DocId(u32);

impl DocId {
    /// The id of the tool tables' slot `slot`.
    pub(super) fn at(slot: usize) -> DocId {
        DocId(u32::try_from(slot).unwrap_or(u32::MAX))
    }

    /// Its slot in the tool tables.
    pub(super) fn slot(self) -> usize {
        self.0 as usize
    }
}
