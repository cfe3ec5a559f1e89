//! Stability attributes, as DTrace documents them for every provider: each of a
//! probe's provider, module, function and name fields, and its arguments, has a
//! triplet `name-stability / data-stability / dependency-class`. `dtrace -lv`
//! and `dtrace -v` print them.

use std::fmt;

/// A stability level, lowest first (DTrace's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stability {
    Internal,
    Private,
    Obsolete,
    External,
    Unstable,
    Evolving,
    Stable,
    Standard,
}

/// An architectural dependency class, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DepClass {
    Unknown,
    Cpu,
    Platform,
    Group,
    Isa,
    Common,
}

impl fmt::Display for Stability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stability::Internal => "Internal",
            Stability::Private => "Private",
            Stability::Obsolete => "Obsolete",
            Stability::External => "External",
            Stability::Unstable => "Unstable",
            Stability::Evolving => "Evolving",
            Stability::Stable => "Stable",
            Stability::Standard => "Standard",
        })
    }
}

impl fmt::Display for DepClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DepClass::Unknown => "Unknown",
            DepClass::Cpu => "CPU",
            DepClass::Platform => "Platform",
            DepClass::Group => "Group",
            DepClass::Isa => "ISA",
            DepClass::Common => "Common",
        })
    }
}

/// One attribute triplet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Attr {
    pub name: Stability,
    pub data: Stability,
    pub class: DepClass,
}

impl Attr {
    pub const fn new(name: Stability, data: Stability, class: DepClass) -> Attr {
        Attr { name, data, class }
    }

    /// The most stable triplet (the identity of [`Attr::min`]).
    pub const STABLE: Attr = Attr::new(Stability::Stable, Stability::Stable, DepClass::Common);

    /// The lower of each of the three parts.
    pub fn min(self, other: Attr) -> Attr {
        Attr {
            name: self.name.min(other.name),
            data: self.data.min(other.data),
            class: self.class.min(other.class),
        }
    }
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.name, self.data, self.class)
    }
}

/// A provider's attributes, one triplet per probe-description field and one for
/// the arguments (the "Stability" table of each provider's chapter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProviderAttrs {
    pub provider: Attr,
    pub module: Attr,
    pub function: Attr,
    pub name: Attr,
    pub args: Attr,
}

impl ProviderAttrs {
    /// The attributes of a probe's description: the lowest of its four fields.
    pub fn description(&self) -> Attr {
        self.provider
            .min(self.module)
            .min(self.function)
            .min(self.name)
    }
}

use DepClass::{Common, Isa, Unknown};
use Stability::{Evolving, Private, Stable, Unstable};

/// The `dtrace` provider (BEGIN, END, ERROR).
pub const DTRACE: ProviderAttrs = ProviderAttrs {
    provider: Attr::new(Stable, Stable, Common),
    module: Attr::new(Private, Private, Unknown),
    function: Attr::new(Private, Private, Unknown),
    name: Attr::new(Stable, Stable, Common),
    args: Attr::new(Stable, Stable, Common),
};

/// The `syscall` provider.
pub const SYSCALL: ProviderAttrs = ProviderAttrs {
    provider: Attr::new(Evolving, Evolving, Common),
    module: Attr::new(Private, Private, Unknown),
    function: Attr::new(Private, Private, Isa),
    name: Attr::new(Evolving, Evolving, Common),
    args: Attr::new(Private, Private, Isa),
};

/// The `profile` provider.
pub const PROFILE: ProviderAttrs = ProviderAttrs {
    provider: Attr::new(Evolving, Evolving, Common),
    module: Attr::new(Unstable, Unstable, Common),
    function: Attr::new(Private, Private, Unknown),
    name: Attr::new(Evolving, Evolving, Common),
    args: Attr::new(Evolving, Evolving, Common),
};

/// The `sdt` provider over kernel tracepoints: probe and argument names are the
/// kernel's own, which change between releases.
pub const SDT: ProviderAttrs = ProviderAttrs {
    provider: Attr::new(Evolving, Evolving, Isa),
    module: Attr::new(Private, Private, Unknown),
    function: Attr::new(Private, Private, Unknown),
    name: Attr::new(Private, Private, Isa),
    args: Attr::new(Private, Private, Isa),
};

/// `proc`, `sched` and `io`: the SDT providers DTrace defines over the kernel.
pub const KERNEL_SDT: ProviderAttrs = ProviderAttrs {
    provider: Attr::new(Evolving, Evolving, Isa),
    module: Attr::new(Private, Private, Unknown),
    function: Attr::new(Private, Private, Unknown),
    name: Attr::new(Evolving, Evolving, Isa),
    args: Attr::new(Evolving, Evolving, Isa),
};

/// The `fbt` provider (the Guide's fbt "Stability" table).
pub const FBT: ProviderAttrs = ProviderAttrs {
    provider: Attr::new(Evolving, Evolving, Common),
    module: Attr::new(Private, Private, Unknown),
    function: Attr::new(Private, Private, Isa),
    name: Attr::new(Evolving, Evolving, Common),
    args: Attr::new(Private, Private, Isa),
};

/// The `rawtp` provider: raw tracepoints are the kernel's own, like `sdt`'s.
pub const RAWTP: ProviderAttrs = SDT;

/// The `lockstat` provider.
pub const LOCKSTAT: ProviderAttrs = ProviderAttrs {
    provider: Attr::new(Evolving, Evolving, Common),
    module: Attr::new(Private, Private, Unknown),
    function: Attr::new(Private, Private, Unknown),
    name: Attr::new(Evolving, Evolving, Common),
    args: Attr::new(Evolving, Evolving, Common),
};

/// The `cpc` provider: event names are the CPU's.
pub const CPC: ProviderAttrs = ProviderAttrs {
    provider: Attr::new(Evolving, Evolving, Common),
    module: Attr::new(Private, Private, Unknown),
    function: Attr::new(Private, Private, Unknown),
    name: Attr::new(Evolving, Evolving, DepClass::Cpu),
    args: Attr::new(Evolving, Evolving, Common),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordering_and_min() {
        assert!(Stability::Internal < Stability::Standard);
        assert!(DepClass::Unknown < DepClass::Common);
        assert_eq!(DTRACE.description(), Attr::new(Private, Private, Unknown),);
        assert_eq!(SYSCALL.description().to_string(), "Private/Private/Unknown");
        assert_eq!(PROFILE.args.to_string(), "Evolving/Evolving/Common");
        assert_eq!(Attr::STABLE.min(SYSCALL.args), SYSCALL.args);
        assert_eq!(DepClass::Isa.to_string(), "ISA");
        assert_eq!(DepClass::Cpu.to_string(), "CPU");
    }
}
