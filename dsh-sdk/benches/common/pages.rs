//! Which pages of the bench binary two server processes have resident: an
//! optional report that says where a difference in file-backed resident set
//! comes from.
//!
//! Both servers run the same binary, so each of its pages is either touched
//! by one, by both, or by neither. `/proc/PID/maps` gives the binary's
//! mappings and `/proc/PID/pagemap` (bit 63 of each page's entry) whether a
//! page is present; no privilege is needed for that bit. The report gives
//! each process's resident KiB per mapping and the largest runs of pages only
//! the first has, as addresses in the ELF file, which
//! `addr2line -f -C -e BINARY 0xADDR` or `nm -n -C BINARY` turn into
//! functions. The kernel maps up to 64 KiB of already cached file pages
//! around each fault ("fault-around"), so one touched function brings in its
//! neighbours: a run names a region, not each function in it.

use std::collections::BTreeSet;
use std::io::{Read, Seek, SeekFrom};

const PAGE: u64 = 4096;

/// One mapping of the binary: its first address, length, file offset and permissions.
struct Mapping {
    start: u64,
    end: u64,
    offset: u64,
    perms: String,
}

/// The binary's mappings in process `pid` and the ELF address of its first.
fn mappings(pid: u32) -> (Vec<Mapping>, u64) {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).expect("the process's binary");
    let exe = exe.to_string_lossy().into_owned();
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).expect("its maps");
    let mut found = Vec::new();
    for line in maps.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 6 || fields[5] != exe {
            continue;
        }
        let (start, end) = fields[0].split_once('-').expect("a range");
        found.push(Mapping {
            start: u64::from_str_radix(start, 16).expect("an address"),
            end: u64::from_str_radix(end, 16).expect("an address"),
            offset: u64::from_str_radix(fields[2], 16).expect("an offset"),
            perms: fields[1].to_owned(),
        });
    }
    // A position-independent binary's first mapping holds file offset 0 at
    // ELF address 0, so an address minus that base is an ELF address.
    let base = found
        .iter()
        .find(|mapping| mapping.offset == 0)
        .map_or(0, |mapping| mapping.start);
    (found, base)
}

/// The binary's resident pages in `pid`, as ELF page numbers with the
/// permissions of their mapping.
fn resident(pid: u32) -> BTreeSet<(u64, String)> {
    let (maps, base) = mappings(pid);
    let mut pagemap =
        std::fs::File::open(format!("/proc/{pid}/pagemap")).expect("the process's pagemap");
    let mut pages = BTreeSet::new();
    for mapping in maps {
        let count = (mapping.end - mapping.start) / PAGE;
        let mut entries = vec![0u8; (count * 8) as usize];
        pagemap
            .seek(SeekFrom::Start(mapping.start / PAGE * 8))
            .expect("a seek in pagemap");
        pagemap.read_exact(&mut entries).expect("pagemap entries");
        for (index, entry) in entries.chunks_exact(8).enumerate() {
            let entry = u64::from_le_bytes(entry.try_into().expect("8 bytes"));
            if entry >> 63 == 1 {
                let page = (mapping.start - base) / PAGE + index as u64;
                pages.insert((page, mapping.perms.clone()));
            }
        }
    }
    pages
}

/// Prints the binary's resident pages of processes `first` and `second`
/// (pid and name) per kind of mapping, and the largest runs of pages only
/// `first` has.
pub fn report(first: (u32, &str), second: (u32, &str)) {
    let [a, b] = [resident(first.0), resident(second.0)];
    let [one, two] = [first.1, second.1];
    let kib = |pages: usize| pages as u64 * PAGE / 1024;
    for perms in ["r-xp", "r--p", "rw-p"] {
        let count = |set: &BTreeSet<(u64, String)>| set.iter().filter(|p| p.1 == perms).count();
        println!(
            "binary pages {perms}: {one} {} KiB, {two} {} KiB",
            kib(count(&a)),
            kib(count(&b))
        );
    }
    let only: Vec<u64> = a.difference(&b).map(|(page, _)| *page).collect();
    println!(
        "pages only {one} has: {} KiB; only {two}: {} KiB",
        kib(only.len()),
        kib(b.difference(&a).count())
    );
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for page in only {
        match runs.last_mut() {
            Some((start, len)) if *start + *len == page => *len += 1,
            _ => runs.push((page, 1)),
        }
    }
    runs.sort_by_key(|run| std::cmp::Reverse(run.1));
    for (start, len) in runs.iter().take(20) {
        println!(
            "  {:>5} KiB at ELF address {:#x}",
            kib(*len as usize),
            start * PAGE
        );
    }
}
