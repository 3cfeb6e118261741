//! What Linux says about processes in `/proc`: the resident memory of one (`load` prints its
//! own; the sandbox bench prints the warm node children's) and the processes below one (the
//! bench and the pool tests find the warm children that way). Empty or `None` where `/proc`
//! is not there.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// Resident set sizes of one process, in KiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resident {
    /// Now (`VmRSS`).
    pub now_kib: u64,
    /// The highest it has been (`VmHWM`).
    pub peak_kib: u64,
}

/// This process's resident memory.
pub fn own() -> Option<Resident> {
    read(PathBuf::from("/proc/self/status"))
}

/// The resident memory of process `pid`.
pub fn of(pid: u32) -> Option<Resident> {
    read(PathBuf::from(format!("/proc/{pid}/status")))
}

fn read(path: PathBuf) -> Option<Resident> {
    let status = std::fs::read_to_string(path).ok()?;
    Some(Resident {
        now_kib: field(&status, "VmRSS:")?,
        peak_kib: field(&status, "VmHWM:")?,
    })
}

/// Every process below `root` (children, their children, …).
pub fn descendants(root: u32) -> HashSet<u32> {
    let parents = parents();
    let mut found: HashSet<u32> = HashSet::new();
    let mut grew = true;
    while grew {
        grew = false;
        for (&pid, &ppid) in &parents {
            if (ppid == root || found.contains(&ppid)) && found.insert(pid) {
                grew = true;
            }
        }
    }
    found
}

/// The command line of `pid`, arguments joined by spaces (empty once it has exited).
pub fn command_line(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| String::from_utf8_lossy(&bytes).replace('\0', " "))
        .unwrap_or_default()
}

/// `pid → parent pid` of every process.
fn parents() -> HashMap<u32, u32> {
    let mut parents = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return parents;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(ppid) = std::fs::read_to_string(entry.path().join("stat"))
            .ok()
            .and_then(|stat| parent_of(&stat))
        {
            parents.insert(pid, ppid);
        }
    }
    parents
}

/// The parent pid in a `stat` line: `pid (comm) state ppid …`, where comm may hold spaces
/// and parentheses.
fn parent_of(stat: &str) -> Option<u32> {
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The KiB value of a `Name:   123 kB` line.
fn field(status: &str, name: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|line| line.strip_prefix(name))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_kib_fields() {
        let status = "Name:\tx\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n";
        assert_eq!(field(status, "VmRSS:"), Some(1024));
        assert_eq!(field(status, "VmHWM:"), Some(2048));
        assert_eq!(field(status, "VmSwap:"), None);
    }

    #[test]
    fn reads_the_parent_from_a_stat_line() {
        assert_eq!(parent_of("42 (a (b) c) S 7 42 42 0"), Some(7));
        assert_eq!(parent_of("garbage"), None);
    }

    #[test]
    fn a_child_is_below_this_process() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("start sleep");
        let below = descendants(std::process::id());
        let _killed = child.kill();
        let _reaped = child.wait();
        assert!(below.contains(&child.id()), "{below:?}");
    }

    #[test]
    fn this_process_has_resident_memory() {
        let own = own().map(|r| r.now_kib > 0 && r.peak_kib >= r.now_kib);
        assert_eq!(own, Some(true));
    }
}
