//! NUMA placement (numa_cpu_nodes, numa_mem_policy) without libnuma: node
//! lists read as libnuma reads them, the nodes' CPUs from sysfs, and the
//! memory policy set with set_mempolicy(2).

use std::io;

/// Where the kernel describes the machine's nodes.
const NODES: &str = "/sys/devices/system/node";

/// The kernel's memory policy modes, in fio's order of names.
const MPOL_PREFERRED: i32 = 1;
const MPOL_BIND: i32 = 2;
const MPOL_INTERLEAVE: i32 = 3;
const MPOL_LOCAL: i32 = 4;

/// Reads a `0-3,5` list as sysfs writes them.
fn read_list(path: &str) -> Vec<usize> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(lo), Ok(hi)) = (lo.parse::<usize>(), hi.parse::<usize>()) {
            out.extend(lo..=hi);
        }
    }
    out
}

/// The highest node number the machine may have.
fn max_node() -> usize {
    read_list(&format!("{NODES}/possible"))
        .into_iter()
        .max()
        .unwrap_or(0)
}

/// A node list as libnuma's numa_parse_nodestring reads it (`all`, or
/// numbers and ranges separated by commas), with its warning for what
/// it cannot use.
pub fn parse_nodes(text: &str) -> Result<Vec<usize>, String> {
    let failed = |warning: String| Err(format!("{warning}\n\nfio: numa_parse_nodestring failed"));
    let text = text.trim();
    if text == "all" {
        return Ok(read_list(&format!("{NODES}/online")));
    }
    let max = max_node();
    let mut nodes = Vec::new();
    for part in text.split(',') {
        let (first, second) = match part.split_once('-') {
            Some((a, b)) => (a, Some(b)),
            None => (part, None),
        };
        let Ok(lo) = first.trim().parse::<usize>() else {
            return failed(format!(
                "libnuma: Warning: unparseable node description `{text}'"
            ));
        };
        if lo > max {
            return failed(format!(
                "libnuma: Warning: node argument {lo} is out of range"
            ));
        }
        let hi = match second {
            None => lo,
            Some(b) => match b.trim().parse::<usize>() {
                Ok(hi) if hi > max => {
                    return failed(format!("libnuma: Warning: node argument {hi} out of range"));
                }
                Ok(hi) => hi,
                Err(_) => {
                    return failed(format!(
                        "libnuma: Warning: unparseable node description `{text}'"
                    ));
                }
            },
        };
        nodes.extend(lo..=hi);
    }
    nodes.sort_unstable();
    nodes.dedup();
    Ok(nodes)
}

/// The CPUs of the given nodes.
pub fn cpus_of(nodes: &[usize]) -> Vec<usize> {
    let mut cpus: Vec<usize> = nodes
        .iter()
        .flat_map(|n| read_list(&format!("{NODES}/node{n}/cpulist")))
        .collect();
    cpus.sort_unstable();
    cpus.dedup();
    cpus
}

/// numa_mem_policy: a kernel mode and its nodes; `None` for `default`,
/// which changes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemPolicy {
    mode: i32,
    nodes: Vec<usize>,
}

impl MemPolicy {
    /// Reads `policy[:nodes]` with fio's rules and messages.
    pub fn parse(text: &str) -> Result<Option<MemPolicy>, String> {
        let (name, list) = match text.split_once(':') {
            Some((n, l)) => (n, Some(l)),
            None => (text, None),
        };
        let mode = match name {
            "default" => 0,
            "prefer" => MPOL_PREFERRED,
            "bind" => MPOL_BIND,
            "interleave" => MPOL_INTERLEAVE,
            "local" => MPOL_LOCAL,
            _ => {
                return Err(
                    "fio: memory policy should be: default, prefer, bind, interleave, local"
                        .to_string(),
                );
            }
        };
        let nodes = match (mode, list) {
            (MPOL_PREFERRED, Some(l)) => {
                let digits = l.trim_start_matches(|c: char| c.is_ascii_digit());
                if !digits.is_empty() {
                    return Err("fio: one node only for 'prefer'".to_string());
                }
                vec![l.parse().unwrap_or(0)]
            }
            (MPOL_PREFERRED, None) => {
                return Err("fio: one node is needed for 'prefer'".to_string());
            }
            (MPOL_INTERLEAVE, l) => parse_nodes(l.unwrap_or("all"))?,
            (0 | MPOL_LOCAL, Some(_)) => {
                return Err("fio: NO nodelist for 'local'".to_string());
            }
            (MPOL_BIND, Some(l)) => parse_nodes(l)?,
            (MPOL_BIND, None) => {
                return Err("fio: a nodelist is needed for 'bind'".to_string());
            }
            _ => Vec::new(),
        };
        Ok((mode != 0).then_some(MemPolicy { mode, nodes }))
    }

    /// Sets the calling thread's memory policy.
    pub fn apply(&self) -> io::Result<()> {
        let bits = 8 * std::mem::size_of::<libc::c_ulong>();
        let words = (max_node() / bits) + 1;
        let mut mask: Vec<libc::c_ulong> = vec![0; words];
        for &n in &self.nodes {
            mask[n / bits] |= 1 << (n % bits);
        }
        // An empty set asks for no nodes at all: only `local` means that.
        let (ptr, maxnode) = if self.nodes.is_empty() {
            (std::ptr::null(), 0)
        } else {
            (mask.as_ptr(), (words * bits + 1) as libc::c_ulong)
        };
        // SAFETY: the mask lives across the call and holds `maxnode - 1`
        // bits.
        let r = unsafe { libc::syscall(libc::SYS_set_mempolicy, self.mode, ptr, maxnode) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_read_as_fio_reads_them() {
        assert_eq!(MemPolicy::parse("default"), Ok(None));
        assert!(MemPolicy::parse("prefer").is_err());
        assert!(MemPolicy::parse("prefer:0,1").is_err());
        assert!(MemPolicy::parse("local:0").is_err());
        assert!(MemPolicy::parse("bind").is_err());
        assert!(MemPolicy::parse("foo").is_err());
        assert!(matches!(MemPolicy::parse("local"), Ok(Some(_))));
    }

    #[test]
    fn bad_node_descriptions_are_refused() {
        assert!(parse_nodes("x").is_err());
        assert!(parse_nodes("100000").is_err());
    }
}
