use dsh_kit::prelude::*;

/// Read a file.
#[tool]
async fn read_a_file_from_the_disk_and_return_its_contents_as_a_string_please() {}

fn main() {}
