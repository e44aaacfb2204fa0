//! Names the macros make: a generated args struct's, and the hidden item
//! that keeps two tools of one name apart. What a tool may be called is in
//! `dsh_kit_rules::names`, which dsh-kit reads too.

/// `read_file` → `ReadFile`: each `_`-separated word capitalized and joined.
pub(crate) fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .flat_map(|word| {
            let mut chars = word.chars();
            let first = chars.next().into_iter().flat_map(char::to_uppercase);
            first.chain(chars)
        })
        .collect()
}

/// The args struct generated from a tool fn's parameters: `read_file` →
/// `ReadFileArgs`.
pub(crate) fn args_struct(fn_name: &str) -> String {
    format!("{}Args", pascal_case(fn_name))
}

/// The args struct's name where its own (`ReadArgs`) names a type of the
/// user's: `__ReadArgs`, which no user item is expected to have.
pub(crate) fn hidden_args_struct(public: &str) -> String {
    format!("__{public}")
}

/// The hidden item a tool emits for each name it answers to, so two tools of
/// one module with one name collide at compile time: `read_file` →
/// `tool_named_read_file`. A `-`, which no identifier holds, becomes `_` and a
/// hash of the name follows, so `read-file` and `read_file` stay apart.
pub(crate) fn name_item(name: &str) -> String {
    if !name.contains('-') {
        return format!("tool_named_{name}");
    }
    // FNV-1a: stable across builds, unlike `std`'s hasher.
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("tool_named_{}_{hash:x}", name.replace('-', "_"))
}

#[cfg(test)]
mod tests {
    use super::pascal_case;

    #[test]
    fn pascal_cases_snake_case() {
        assert_eq!(pascal_case("read_file"), "ReadFile");
        assert_eq!(pascal_case("greet"), "Greet");
        assert_eq!(pascal_case("get_2_items"), "Get2Items");
        assert_eq!(pascal_case("__private_tool_"), "PrivateTool");
        assert_eq!(pascal_case("fetchURL"), "FetchURL");
        assert_eq!(pascal_case("élan_vital"), "ÉlanVital");
    }
}
