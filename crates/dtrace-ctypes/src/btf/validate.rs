//! Validation of a parsed blob: every reference in range and of the right kind, every
//! name a valid string, storage-free reference chains acyclic and short. After this,
//! the accessors in the parent module cannot go wrong on this blob.

use super::*;

impl Btf {
    pub(super) fn validate(&self) -> Result<(), BtfError> {
        let count = self.type_count();
        for i in 0..self.offsets.len() as u32 {
            let id = self.start_id + i;
            let t = self.get(id).ok_or(BtfError::Malformed {
                id,
                reason: "missing record",
            })?;
            let refok = |target: u32| {
                if target < count {
                    Ok(())
                } else {
                    Err(BtfError::BadTypeRef { id, target })
                }
            };
            let stringok = |off: u32| {
                if self.str_ok(off) {
                    Ok(())
                } else {
                    Err(BtfError::BadString { id, offset: off })
                }
            };
            let bad = |reason| Err(BtfError::Malformed { id, reason });
            stringok(t.name_off)?;
            let vlen = t.vlen as usize;
            match t.kind {
                KIND_INT => {
                    let ii = t.int_info();
                    let size = t.size_or_type;
                    if !matches!(size, 1 | 2 | 4 | 8 | 16) {
                        return bad("integer size");
                    }
                    if ii.bits == 0 || ii.bit_offset + ii.bits > size * 8 {
                        return bad("integer bits");
                    }
                }
                KIND_PTR | KIND_TYPEDEF | KIND_VOLATILE | KIND_CONST | KIND_RESTRICT
                | KIND_TYPE_TAG | KIND_FUNC | KIND_VAR | KIND_DECL_TAG => {
                    refok(t.size_or_type)?;
                }
                KIND_ARRAY => {
                    let (elem, index, _) = t.array();
                    refok(elem)?;
                    refok(index)?;
                }
                KIND_STRUCT | KIND_UNION | KIND_DATASEC => {
                    for k in 0..vlen {
                        let (a, b) = (t.word(3 * k), t.word(3 * k + 1));
                        if t.kind == KIND_DATASEC {
                            refok(a)?;
                        } else {
                            stringok(a)?;
                            refok(b)?;
                            if b == 0 {
                                return bad("void member");
                            }
                        }
                    }
                }
                KIND_ENUM | KIND_ENUM64 => {
                    if !matches!(t.size_or_type, 1 | 2 | 4 | 8) {
                        return bad("enum size");
                    }
                    let stride = if t.kind == KIND_ENUM { 2 } else { 3 };
                    for k in 0..vlen {
                        stringok(t.word(stride * k))?;
                    }
                }
                KIND_FUNC_PROTO => {
                    refok(t.size_or_type)?;
                    for k in 0..vlen {
                        stringok(t.word(2 * k))?;
                        refok(t.word(2 * k + 1))?;
                    }
                }
                KIND_FWD | KIND_FLOAT => {}
                _ => {} // Unknown kinds sized by the layout section: never imported.
            }
        }
        // Second pass: what the references point at.
        for i in 0..self.offsets.len() as u32 {
            let id = self.start_id + i;
            let Some(t) = self.get(id) else { continue };
            let value = |target: u32| {
                if is_value_kind(self.kind_of(target)) {
                    Ok(())
                } else {
                    Err(BtfError::BadTypeRef { id, target })
                }
            };
            match t.kind {
                KIND_FUNC if self.kind_of(t.size_or_type) != KIND_FUNC_PROTO => {
                    return Err(BtfError::BadTypeRef {
                        id,
                        target: t.size_or_type,
                    });
                }
                KIND_PTR | KIND_TYPEDEF | KIND_VOLATILE | KIND_CONST | KIND_RESTRICT
                | KIND_TYPE_TAG | KIND_VAR => value(t.size_or_type)?,
                KIND_ARRAY => value(t.array().0)?,
                KIND_STRUCT | KIND_UNION => {
                    for k in 0..t.vlen as usize {
                        value(t.word(3 * k + 1))?;
                    }
                }
                KIND_FUNC_PROTO => {
                    value(t.size_or_type)?;
                    for k in 0..t.vlen as usize {
                        value(t.word(2 * k + 1))?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Reject cycles (and absurdly long chains) along storage-free references.
    pub(super) fn check_chains(&self) -> Result<(), BtfError> {
        const NEW: u8 = 0;
        const ON_PATH: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![NEW; self.offsets.len()];
        let mut path: Vec<u32> = Vec::new();
        for i in 0..self.offsets.len() {
            if state[i] != NEW {
                continue;
            }
            path.clear();
            let mut id = self.start_id + i as u32;
            // Ids below `start_id` are the base's, checked when it was parsed.
            while let Some(local) = id.checked_sub(self.start_id) {
                let Some(st) = state.get_mut(local as usize) else {
                    break;
                };
                match *st {
                    DONE => break,
                    ON_PATH => return Err(BtfError::Cycle { id }),
                    _ => {}
                }
                let Some(t) = self.get(id) else { break };
                if !is_chain(t.kind) {
                    break;
                }
                *st = ON_PATH;
                path.push(local);
                if path.len() > MAX_CHAIN {
                    return Err(BtfError::Malformed {
                        id,
                        reason: "reference chain too long",
                    });
                }
                id = if t.kind == KIND_ARRAY {
                    t.array().0
                } else {
                    t.size_or_type
                };
            }
            for &p in &path {
                if let Some(st) = state.get_mut(p as usize) {
                    *st = DONE;
                }
            }
            if let Some(st) = state.get_mut(i) {
                *st = DONE;
            }
        }
        Ok(())
    }
}
