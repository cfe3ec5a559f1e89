//! A tiny BTF writer for tests: builds base and split blobs record by record.
#![allow(dead_code)]

pub const INT: u32 = 1;
pub const PTR: u32 = 2;
pub const ARRAY: u32 = 3;
pub const STRUCT: u32 = 4;
pub const UNION: u32 = 5;
pub const ENUM: u32 = 6;
pub const FWD: u32 = 7;
pub const TYPEDEF: u32 = 8;
pub const VOLATILE: u32 = 9;
pub const CONST: u32 = 10;
pub const FUNC: u32 = 12;
pub const FUNC_PROTO: u32 = 13;
pub const VAR: u32 = 14;
pub const DATASEC: u32 = 15;
pub const FLOAT: u32 = 16;
pub const DECL_TAG: u32 = 17;
pub const TYPE_TAG: u32 = 18;
pub const ENUM64: u32 = 19;

pub struct Builder {
    types: Vec<u8>,
    strs: Vec<u8>,
    next: u32,
    str_base: u32,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    pub fn new() -> Builder {
        Builder {
            types: Vec::new(),
            strs: vec![0],
            next: 1,
            str_base: 0,
        }
    }

    /// Split BTF on a base with `base_count` types (incl. void) and `base_str_len`.
    pub fn split(base_count: u32, base_str_len: u32) -> Builder {
        Builder {
            types: Vec::new(),
            strs: vec![0],
            next: base_count,
            str_base: base_str_len,
        }
    }

    pub fn next_id(&self) -> u32 {
        self.next
    }

    pub fn s(&mut self, name: &str) -> u32 {
        if name.is_empty() {
            return 0;
        }
        let off = self.str_base + self.strs.len() as u32;
        self.strs.extend_from_slice(name.as_bytes());
        self.strs.push(0);
        off
    }

    pub fn w(&mut self, v: u32) {
        self.types.extend_from_slice(&v.to_le_bytes());
    }

    pub fn rec(&mut self, name: &str, kind: u32, vlen: u32, kflag: bool, st: u32) -> u32 {
        let n = self.s(name);
        self.w(n);
        self.w((kind << 24) | vlen | ((kflag as u32) << 31));
        self.w(st);
        self.next += 1;
        self.next - 1
    }

    pub fn int(&mut self, name: &str, size: u32, signed: bool) -> u32 {
        let id = self.rec(name, INT, 0, false, size);
        self.w(((signed as u32) << 24) | (size * 8));
        id
    }

    pub fn int_bits(&mut self, name: &str, size: u32, offset: u32, bits: u32) -> u32 {
        let id = self.rec(name, INT, 0, false, size);
        self.w((offset << 16) | bits);
        id
    }

    pub fn ptr(&mut self, t: u32) -> u32 {
        self.rec("", PTR, 0, false, t)
    }

    pub fn typedef(&mut self, name: &str, t: u32) -> u32 {
        self.rec(name, TYPEDEF, 0, false, t)
    }

    pub fn array(&mut self, elem: u32, index: u32, n: u32) -> u32 {
        let id = self.rec("", ARRAY, 0, false, 0);
        self.w(elem);
        self.w(index);
        self.w(n);
        id
    }

    /// Members: (name, type, bit offset, bitfield size); kflag encodes bit sizes.
    pub fn aggregate(
        &mut self,
        kind: u32,
        name: &str,
        size: u32,
        kflag: bool,
        members: &[(&str, u32, u32, u32)],
    ) -> u32 {
        let id = self.rec(name, kind, members.len() as u32, kflag, size);
        for (n, t, off, bits) in members {
            let n = self.s(n);
            self.w(n);
            self.w(*t);
            self.w(if kflag { (bits << 24) | off } else { *off });
        }
        id
    }

    pub fn enum32(&mut self, name: &str, signed: bool, values: &[(&str, i32)]) -> u32 {
        let id = self.rec(name, ENUM, values.len() as u32, signed, 4);
        for (n, v) in values {
            let n = self.s(n);
            self.w(n);
            self.w(*v as u32);
        }
        id
    }

    pub fn enum64(&mut self, name: &str, values: &[(&str, u64)]) -> u32 {
        let id = self.rec(name, ENUM64, values.len() as u32, false, 8);
        for (n, v) in values {
            let n = self.s(n);
            self.w(n);
            self.w(*v as u32);
            self.w((*v >> 32) as u32);
        }
        id
    }

    pub fn func_proto(&mut self, ret: u32, params: &[(&str, u32)]) -> u32 {
        let id = self.rec("", FUNC_PROTO, params.len() as u32, false, ret);
        for (n, t) in params {
            let n = self.s(n);
            self.w(n);
            self.w(*t);
        }
        id
    }

    pub fn var(&mut self, name: &str, t: u32) -> u32 {
        let id = self.rec(name, VAR, 0, false, t);
        self.w(1);
        id
    }

    pub fn datasec(&mut self, name: &str, size: u32, vars: &[(u32, u32, u32)]) -> u32 {
        let id = self.rec(name, DATASEC, vars.len() as u32, false, size);
        for (t, off, sz) in vars {
            self.w(*t);
            self.w(*off);
            self.w(*sz);
        }
        id
    }

    pub fn str_len(&self) -> u32 {
        self.strs.len() as u32
    }

    pub fn finish(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&0xeb9fu16.to_le_bytes());
        out.push(1);
        out.push(0);
        out.extend_from_slice(&24u32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(self.types.len() as u32).to_le_bytes());
        out.extend_from_slice(&(self.types.len() as u32).to_le_bytes());
        out.extend_from_slice(&(self.strs.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.types);
        out.extend_from_slice(&self.strs);
        out
    }
}

/// A small base blob exercising every kind the importer handles.
/// Returns (blob, builder) so split blobs can continue from it.
pub fn sample_base() -> (Vec<u8>, Builder) {
    let mut b = Builder::new();
    let int = b.int("int", 4, true); // 1
    let uint = b.int("unsigned int", 4, false); // 2
    let ch = b.int("char", 1, true); // 3
    let long = b.int("long int", 8, true); // 4
                                           // 5: struct node { int v; struct node *next; unsigned int a:3, b:5; char name[8]; }
    let node = b.next_id();
    let pnode = node + 1;
    let arr = node + 2;
    b.aggregate(
        STRUCT,
        "node",
        24,
        true,
        &[
            ("v", int, 0, 0),
            ("next", pnode, 64, 0),
            ("a", uint, 128, 3),
            ("b", uint, 131, 5),
            ("name", arr, 136, 0),
        ],
    );
    b.ptr(node); // 6
    b.array(ch, int, 8); // 7
    let pid = b.typedef("pid_t", int); // 8
    let color = b.enum32("color", true, &[("RED", 0), ("GREEN", 1), ("NEG", -2)]); // 9
                                                                                   // 10: union u { int i; long l; }
    let u = b.aggregate(UNION, "u", 8, false, &[("i", int, 0, 0), ("l", long, 0, 0)]);
    // 11: struct outer { pid_t p; union { int x; long y; }; struct { int z; }; enum color c; }
    let outer = b.next_id();
    let anon_u = outer + 1;
    let anon_s = outer + 2;
    b.aggregate(
        STRUCT,
        "outer",
        24,
        false,
        &[
            ("p", pid, 0, 0),
            ("", anon_u, 64, 0),
            ("", anon_s, 128, 0),
            ("c", color, 160, 0),
        ],
    );
    b.aggregate(UNION, "", 8, false, &[("x", int, 0, 0), ("y", long, 0, 0)]); // 12
    b.aggregate(STRUCT, "", 4, false, &[("z", int, 0, 0)]); // 13
                                                            // 14: old-style bitfield: INT with 4 bits at offset 2 as member type.
    let bits = b.int_bits("unsigned int", 4, 2, 4);
    b.aggregate(STRUCT, "oldbits", 4, false, &[("f", bits, 0, 0)]); // 15
    let cint = b.rec("", CONST, 0, false, int); // 16
    let proto = b.func_proto(int, &[("a", cint), ("", 0)]); // 17
    b.rec("myfunc", FUNC, 0, false, proto); // 18
    let var = b.var("counter", long); // 19
    b.datasec(".data..percpu", 8, &[(var, 0, 8)]); // 20
    b.enum64("big", &[("HUGE", 0xffff_ffff_0000_0001)]); // 21
    b.rec("double", FLOAT, 0, false, 8); // 22
    let tagged = b.rec("user", TYPE_TAG, 0, false, int); // 23
    b.ptr(tagged); // 24
    b.rec("", FWD, 0, true, 0); // 25 (anonymous union fwd; odd but legal)
    let _ = u;
    (b.finish(), b)
}
