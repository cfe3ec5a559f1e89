//! [`Name`]: one part of a probe's name (provider, module, function, name) as a
//! string that is cheap to clone and share.
//!
//! A catalog holds 100k+ probes (fbt lists two per kernel function), and most of
//! their parts repeat: every fbt probe's provider is `fbt`, nearly every module is
//! `vmlinux`, every name `entry` or `return`, and a function's two probes share
//! its name. A `Name` is either a `&'static str` (no allocation at all) or a
//! reference-counted string that clones without copying, so a provider allocates
//! each distinct string once.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A shared, immutable string; it compares, hashes and orders as its text.
#[derive(Clone)]
pub struct Name(Repr);

#[derive(Clone)]
enum Repr {
    Static(&'static str),
    Shared(Arc<str>),
}

impl Name {
    /// A name that needs no allocation (`"vmlinux"`, `"entry"`).
    pub const fn from_static(s: &'static str) -> Name {
        Name(Repr::Static(s))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Static(s) => s,
            Repr::Shared(s) => s,
        }
    }
}

impl Default for Name {
    fn default() -> Name {
        Name::from_static("")
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        if s.is_empty() {
            Name::default()
        } else {
            Name(Repr::Shared(Arc::from(s)))
        }
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        if s.is_empty() {
            Name::default()
        } else {
            Name(Repr::Shared(Arc::from(s)))
        }
    }
}

impl From<&String> for Name {
    fn from(s: &String) -> Name {
        Name::from(s.as_str())
    }
}

impl From<Name> for String {
    fn from(n: Name) -> String {
        n.as_str().to_string()
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Name {}

impl std::hash::Hash for Name {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_compare_as_their_text() {
        let a = Name::from_static("entry");
        let b = Name::from(String::from("entry"));
        assert_eq!(a, b);
        assert_eq!(a, "entry");
        assert_eq!("entry", b);
        assert_eq!(b, String::from("entry"));
        let (x, y) = (Name::from("a"), Name::from_static("b"));
        assert_eq!(x.cmp(&y), std::cmp::Ordering::Less);
        assert_eq!(format!("{a:>7}|{b:?}"), "  entry|\"entry\"");
        assert_eq!(&*Name::from(""), "");
        assert_eq!(Name::default(), "");
        let mut set = std::collections::HashSet::new();
        set.insert(b.clone());
        assert!(set.contains("entry"));
        assert_eq!(String::from(b), "entry");
    }

    #[test]
    fn clones_share_their_text() {
        let a = Name::from("vfs_read");
        let b = a.clone();
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
    }
}
