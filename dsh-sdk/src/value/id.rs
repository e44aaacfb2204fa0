//! The ids of calls and batches: UUID v4s, made for the cost of an addition.
//!
//! A v4 UUID carries 122 bits that are random or pseudo-random (RFC 9562,
//! section 5.4); the other six say its version and variant. The ids made
//! here take those 122 bits from a sequence each thread keeps: its first id
//! is drawn from the random generator `Uuid::new_v4` uses (seeded by the
//! operating system), and each next one adds an odd constant to the last,
//! modulo 2^122 (a Weyl sequence).
//!
//! - **Unique within a thread by construction**: such a sequence does not
//!   come back to a value within 2^122 steps.
//! - **Unique across threads and processes by chance, as v4s are**: two
//!   threads that made `n` ids each share one only if their random starts
//!   lie within `n` steps of each other, a chance of about `2n / 2^122`.
//! - **Not secret**: the next id of a thread follows from the last. Nothing
//!   is granted by knowing an invocation id; what must not be guessed
//!   (session ids, task ids, the names of spill files) is still drawn from
//!   the random generator.
//!
//! A call's id so costs a thread-local read and an addition, where a v4 from
//! the generator costs a ChaCha block now and then and the copies around it.

use std::cell::Cell;

use uuid::Uuid;

/// The step between a thread's ids: the golden ratio's fraction, odd, in
/// 122 bits, so the sequence runs through every value before repeating.
const STEP: u128 = (0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C834 >> 6) | 1;

/// The bits of the 122 that vary.
const BITS: u128 = (1 << 122) - 1;

thread_local! {
    /// The 122 bits of this thread's next id; `None` until its first.
    static NEXT: Cell<Option<u128>> = const { Cell::new(None) };
}

/// A new id: a UUID v4, distinct from every other this thread made.
pub(crate) fn new_id() -> Uuid {
    NEXT.with(|next| {
        let bits = next.get().unwrap_or_else(|| unpack(Uuid::new_v4()));
        next.set(Some(bits.wrapping_add(STEP) & BITS));
        pack(bits)
    })
}

/// The v4 UUID whose 122 free bits are `bits`, in order: the low 62 below
/// the variant, the next 12 between it and the version, the top 48 above.
fn pack(bits: u128) -> Uuid {
    let low = bits & ((1 << 62) - 1);
    let middle = (bits >> 62) & 0xFFF;
    let high = bits >> 74;
    Uuid::from_u128(low | (0b10 << 62) | (middle << 64) | (0x4 << 76) | (high << 80))
}

/// The 122 free bits of a v4 UUID: [`pack`] undone.
fn unpack(id: Uuid) -> u128 {
    let id = id.as_u128();
    let low = id & ((1 << 62) - 1);
    let middle = (id >> 64) & 0xFFF;
    let high = id >> 80;
    low | (middle << 62) | (high << 74)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use uuid::{Variant, Version};

    use super::*;

    #[test]
    fn ids_are_v4_and_distinct() {
        let ids: Vec<Uuid> = (0..10_000).map(|_| new_id()).collect();
        assert!(
            ids.iter()
                .all(|id| id.get_version() == Some(Version::Random))
        );
        assert!(ids.iter().all(|id| id.get_variant() == Variant::RFC4122));
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
    }

    #[test]
    fn packing_keeps_every_free_bit() {
        for bits in [
            0,
            1,
            BITS,
            STEP,
            BITS - STEP,
            0x0123_4567_89AB_CDEF_0123_4567_89AB_CDEF & BITS,
        ] {
            assert_eq!(unpack(pack(bits)), bits);
        }
        let drawn = Uuid::new_v4();
        assert_eq!(pack(unpack(drawn)), drawn);
    }

    #[test]
    fn threads_start_apart() {
        let first = || std::thread::spawn(new_id).join().expect("the thread runs");
        assert_ne!(first(), first());
    }
}
