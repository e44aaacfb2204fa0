use std::net::TcpStream;

use dsh_kit::card::ReadCard;
use dsh_kit::prelude::*;

/// Read a note.
#[tool(present = note_card)]
async fn read_note(title: String) -> String {
    title
}

#[present]
fn note_card(args: &ReadNoteArgs, value: &String) -> Card {
    let online = TcpStream::connect("127.0.0.1:80").is_ok();
    Card::Read(ReadCard::new(args.title.clone(), format!("{value} (online: {online})")))
}

fn main() {}
