//! Function symbols from DWARF (`.debug_info` subprograms with an address
//! range), for objects or debug files that carry debug information but no
//! symbol table.

use crate::elf::Sym;
use gimli::{AttributeValue, EndianSlice, RunTimeEndian};
use object::{Object, ObjectSection};

/// The functions `file`'s DWARF describes (empty without `.debug_info`).
pub fn functions(file: &object::File) -> Vec<Sym> {
    let endian = if file.is_little_endian() {
        RunTimeEndian::Little
    } else {
        RunTimeEndian::Big
    };
    let load = |id: gimli::SectionId| -> Result<EndianSlice<'_, RunTimeEndian>, ()> {
        let data = file
            .section_by_name(id.name())
            .and_then(|s| s.data().ok())
            .unwrap_or(&[]);
        Ok(EndianSlice::new(data, endian))
    };
    let Ok(dwarf) = gimli::Dwarf::load(load) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut units = dwarf.units();
    while let Ok(Some(header)) = units.next() {
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        let mut entries = unit.entries();
        while let Ok(Some(e)) = entries.next_dfs() {
            if e.tag() != gimli::DW_TAG_subprogram {
                continue;
            }
            let Some(low) = e
                .attr_value(gimli::DW_AT_low_pc)
                .and_then(|v| dwarf.attr_address(&unit, v).ok().flatten())
            else {
                continue;
            };
            let size = match e.attr_value(gimli::DW_AT_high_pc) {
                Some(AttributeValue::Udata(n)) => n,
                Some(v) => match dwarf.attr_address(&unit, v) {
                    Ok(Some(high)) => high.saturating_sub(low),
                    _ => 0,
                },
                None => 0,
            };
            let name = e
                .attr_value(gimli::DW_AT_linkage_name)
                .or_else(|| e.attr_value(gimli::DW_AT_name))
                .and_then(|v| dwarf.attr_string(&unit, v).ok())
                .map(|s| String::from_utf8_lossy(s.slice()).into_owned());
            if let Some(name) = name.filter(|n| !n.is_empty()) {
                if low != 0 {
                    out.push(Sym {
                        addr: low,
                        size,
                        name,
                        local: false,
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    /// A program with DWARF but no symbol table (`strip --keep-section`):
    /// its functions come from `.debug_info`. Skipped without cc/objcopy.
    #[test]
    fn functions_from_debug_info_without_symtab() {
        let dir = std::env::temp_dir().join(format!("usym-dwarf-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let src = dir.join("p.c");
        let exe = dir.join("p");
        let _ = std::fs::write(
            &src,
            "__attribute__((noinline)) int leaf(int x) { return x * 3; }\n\
             int main(int argc, char **argv) { (void)argv; return leaf(argc); }\n",
        );
        let built = Command::new("cc")
            .args(["-g", "-O1", "-o"])
            .arg(&exe)
            .arg(&src)
            .status()
            .is_ok_and(|s| s.success())
            && Command::new("strip")
                .args(["--strip-all", "--keep-section=.debug_*"])
                .arg(&exe)
                .status()
                .is_ok_and(|s| s.success());
        if built {
            let data = std::fs::read(&exe).unwrap_or_default();
            let file = object::File::parse(&data[..]).expect("ELF");
            assert!(
                object::Object::symbols(&file).next().is_none(),
                "symtab left"
            );
            let path = exe.to_string_lossy().into_owned();
            let obj = crate::elf::ElfObject::load(&path, &path).expect("ELF");
            let names: Vec<&str> = obj.syms.iter().map(|s| s.name.as_str()).collect();
            assert!(
                names.contains(&"leaf") && names.contains(&"main"),
                "{names:?}"
            );
            let leaf = obj.syms.iter().find(|s| s.name == "leaf").expect("leaf");
            assert!(leaf.size > 0);
            assert_eq!(
                obj.lookup(leaf.addr + 1).map(|s| s.name.as_str()),
                Some("leaf")
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
