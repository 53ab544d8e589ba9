//! How a job's thread is placed and prioritised before it does any I/O,
//! in fio's order: group and user ids, CPU affinity, I/O priority, nice,
//! then `exec_prerun`; `exec_postrun` once the job is done.

use std::io;

use crate::options::Value;
use crate::plan::JobSpec;
use crate::sys::SetupError;

/// fio's IOPRIO_WHO_PROCESS: the target of ioprio_set is a task.
const IOPRIO_WHO_PROCESS: libc::c_int = 1;

/// fio's IOPRIO_CLASS_SHIFT: the class sits above the 13 level bits.
const CLASS_SHIFT: u16 = 13;

/// The kernel's encoding of a priority class and level.
pub fn ioprio_value(class: u16, level: u16) -> u16 {
    (class << CLASS_SHIFT) | level
}

/// The class and level of an encoded priority, as fio prints them.
pub fn class_and_level(ioprio: u16) -> (u16, u16) {
    (ioprio >> CLASS_SHIFT, ioprio & 7)
}

/// The thread settings of one job.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadSetup {
    pub gid: Option<u32>,
    pub uid: Option<u32>,
    /// The CPUs the job may run on (cpus_allowed or cpumask), already
    /// narrowed to one for cpus_allowed_policy=split.
    pub cpus: Option<Vec<usize>>,
    /// split asked for CPUs but none were left (fio's cpus_split error).
    pub split_empty: bool,
    /// gtod_cpu: the CPU of the thread that keeps the time.
    pub gtod_cpu: Option<usize>,
    /// numa_cpu_nodes: the CPUs of those nodes, which replace the set
    /// above; numa_mem_policy: where the job's memory comes from.
    pub numa_cpus: Option<Vec<usize>>,
    pub mem_policy: Option<crate::sys::numa::MemPolicy>,
    /// prio/prioclass: the class and level set with ioprio_set.
    pub ioprio: Option<(u16, u16)>,
    pub nice: i32,
    /// Bytes of memory to lock for the job's life (lockmem), 0 for none.
    pub lockmem: u64,
    pub prerun: Option<String>,
    pub postrun: Option<String>,
    /// cgroup: the control group the job's thread runs in.
    pub cgroup: Option<crate::sys::cgroup::Cgroup>,
}

/// What a job holds while it runs: its locked memory (lockmem) and its
/// place in a control group, both given back on drop.
#[derive(Debug)]
pub struct Held {
    _locked: Option<Locked>,
    _cgroup: Option<crate::sys::cgroup::Member>,
}

impl ThreadSetup {
    /// Reads the options; `thread_index` is fio's thread number less one,
    /// which picks the CPU under cpus_allowed_policy=split.
    pub fn from_job(job: &JobSpec, thread_index: usize) -> ThreadSetup {
        let id = |name: &str| {
            job.setting(name)
                .and_then(|s| s.value.number())
                .map(|v| v as u32)
        };
        let text = |name: &str| match job.value(name) {
            Some(Value::Text(t)) if !t.is_empty() => Some(t.clone()),
            _ => None,
        };
        let gtod_cpu = job
            .setting("gtod_cpu")
            .and_then(|s| s.value.number())
            .map(|c| c as usize);
        let mut cpus = cpu_set(job);
        // The job keeps off the time keeper's CPU (fio does so only for a
        // CPU other than 0).
        if let (Some(gtod), Some(set)) = (gtod_cpu.filter(|&c| c != 0), &mut cpus) {
            set.retain(|&c| c != gtod);
        }
        let mut split_empty = false;
        let split = matches!(
            job.value("cpus_allowed_policy"),
            Some(Value::Word { word: "split", .. })
        );
        if let (true, Some(set)) = (split, &mut cpus) {
            if set.is_empty() {
                split_empty = true;
            } else {
                let keep = set[thread_index % set.len()];
                *set = vec![keep];
            }
        }
        let prio_set = job.setting("prio").is_some() || job.setting("prioclass").is_some();
        ThreadSetup {
            gid: id("gid"),
            uid: id("uid"),
            cpus,
            split_empty,
            gtod_cpu,
            numa_cpus: match job.value("numa_cpu_nodes") {
                Some(Value::NumaNodes(nodes)) => Some(crate::sys::numa::cpus_of(nodes)),
                _ => None,
            },
            mem_policy: match job.value("numa_mem_policy") {
                Some(Value::NumaPolicy(policy)) => policy.clone(),
                _ => None,
            },
            ioprio: prio_set.then(|| {
                (
                    job.num("prioclass").unwrap_or(0) as u16,
                    job.num("prio").unwrap_or(0) as u16,
                )
            }),
            nice: job
                .setting("nice")
                .and_then(|s| match &s.value {
                    Value::Nums(v) => Some(v[0] as i64 as i32),
                    _ => None,
                })
                .unwrap_or(0),
            lockmem: job.num("lockmem").unwrap_or(0),
            prerun: text("exec_prerun"),
            postrun: text("exec_postrun"),
            cgroup: text("cgroup").map(|name| crate::sys::cgroup::Cgroup {
                name,
                weight: job.num("cgroup_weight").unwrap_or(0) as u32,
                keep: job.flag("cgroup_nodelete"),
            }),
        }
    }

    /// The job's own I/O priority, as the kernel encodes it (0 unless
    /// prio or prioclass is set).
    pub fn default_ioprio(&self) -> u16 {
        self.ioprio.map_or(0, |(c, l)| ioprio_value(c, l))
    }

    /// Applies everything to the calling thread, which is the job's.
    /// `name` is the job's, for exec_prerun's output file. The memory
    /// locked for lockmem stays locked, and the thread stays in its
    /// control group, while the returned guard lives.
    pub fn apply(&self, name: &str) -> Result<Held, SetupError> {
        let fail = |func: &'static str, e: io::Error| SetupError {
            errno: e.raw_os_error().unwrap_or(libc::EINVAL),
            func,
            message: String::new(),
        };
        // The raw system calls change only this thread's ids (glibc's
        // wrappers would change every thread's, other jobs' included).
        // SAFETY (all calls below): plain system calls on the calling
        // thread with values, or with a CPU set that lives on the stack.
        if let Some(gid) = self.gid
            && unsafe { libc::syscall(libc::SYS_setgid, libc::c_long::from(gid)) } != 0
        {
            return Err(fail("setgid", io::Error::last_os_error()));
        }
        if let Some(uid) = self.uid
            && unsafe { libc::syscall(libc::SYS_setuid, libc::c_long::from(uid)) } != 0
        {
            return Err(fail("setuid", io::Error::last_os_error()));
        }
        if self.split_empty {
            eprintln!("fio: no CPUs set\nfio: Try increasing number of available CPUs");
            return Err(fail(
                "cpus_split",
                io::Error::from_raw_os_error(libc::EINVAL),
            ));
        }
        if let Some(cpus) = &self.cpus {
            set_affinity(cpus).map_err(|e| fail("cpu_set_affinity", e))?;
        }
        if let Some(cpus) = &self.numa_cpus {
            set_affinity(cpus).map_err(|e| fail("numa_run_on_node_mask failed\n", e))?;
        }
        if let Some(policy) = &self.mem_policy
            && let Err(e) = policy.apply()
        {
            // libnuma warns and carries on.
            eprintln!("libnuma: Warning: set_mempolicy: {e}");
        }
        let locked = if self.lockmem > 0 {
            Some(Locked::new(self.lockmem).map_err(|e| fail("mlock", e))?)
        } else {
            None
        };
        if let Some((class, level)) = self.ioprio {
            let value = libc::c_long::from(ioprio_value(class, level));
            let r = unsafe {
                libc::syscall(
                    libc::SYS_ioprio_set,
                    IOPRIO_WHO_PROCESS,
                    0 as libc::c_long,
                    value,
                )
            };
            if r != 0 {
                return Err(fail("ioprio_set", io::Error::last_os_error()));
            }
        }
        // fio places the job in its group after the priority, before nice.
        let cgroup = match &self.cgroup {
            // SAFETY: gettid has no preconditions.
            Some(group) => Some(group.join(unsafe { libc::gettid() } as u32)?),
            None => None,
        };
        if self.nice != 0 {
            // nice(2) may return -1 as a valid value: only errno tells.
            unsafe { *libc::__errno_location() = 0 };
            let r = unsafe { libc::nice(self.nice) };
            let e = io::Error::last_os_error();
            if r == -1 && e.raw_os_error().unwrap_or(0) != 0 {
                return Err(fail("nice", e));
            }
        }
        if let Some(cmd) = &self.prerun
            && !exec(name, cmd, "prerun")
        {
            // fio ends such a job before its I/O without an error code.
            return Err(SetupError {
                errno: 0,
                func: "exec_prerun",
                message: String::new(),
            });
        }
        Ok(Held {
            _locked: locked,
            _cgroup: cgroup,
        })
    }

    /// Runs exec_postrun, if set.
    pub fn finish(&self, name: &str) {
        if let Some(cmd) = &self.postrun {
            exec(name, cmd, "postrun");
        }
    }
}

/// Pins the calling thread to `cpus`.
pub fn set_affinity(cpus: &[usize]) -> io::Result<()> {
    // SAFETY: a CPU set on the stack, filled and handed to the kernel
    // for the calling thread.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// fio's headroom: lockmem never locks the last 128 MiB of memory.
const LOCK_HEADROOM: u64 = 128 << 20;

/// Anonymous memory locked in RAM (lockmem), so that the job runs with
/// that much less memory to use; unlocked and unmapped on drop.
#[derive(Debug)]
pub struct Locked {
    at: *mut libc::c_void,
    len: usize,
}

impl Locked {
    fn new(bytes: u64) -> io::Result<Locked> {
        // SAFETY: sysconf has no preconditions.
        let (pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        let physical = (pages.max(0) as u64).saturating_mul(page.max(0) as u64);
        let mut bytes = bytes;
        if physical > 0 && bytes.saturating_add(LOCK_HEADROOM) > physical {
            bytes = physical.saturating_sub(LOCK_HEADROOM);
            println!("fio: limiting mlocked memory to {}MiB", bytes >> 20);
        }
        let len = bytes as usize;
        // SAFETY: a fresh private anonymous mapping, owned by the guard.
        let at = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if at == libc::MAP_FAILED {
            let e = io::Error::last_os_error();
            eprintln!("malloc locked mem: {e}");
            return Err(e);
        }
        // SAFETY: the mapping just made, of that length.
        if unsafe { libc::mlock(at, len) } != 0 {
            let e = io::Error::last_os_error();
            eprintln!("mlock: {e}");
            // SAFETY: as above; nothing else refers to it.
            unsafe { libc::munmap(at, len) };
            return Err(e);
        }
        Ok(Locked { at, len })
    }
}

impl Drop for Locked {
    fn drop(&mut self) {
        // SAFETY: the guard owns the mapping; munmap also unlocks it.
        unsafe { libc::munmap(self.at, self.len) };
    }
}

/// The CPUs named by cpus_allowed (a list) or cpumask (a bit mask), the
/// later one written winning as in fio.
fn cpu_set(job: &JobSpec) -> Option<Vec<usize>> {
    let list = job.setting("cpus_allowed");
    let mask = job.setting("cpumask");
    let later_is_mask = match (list, mask) {
        (None, None) => return None,
        (Some(_), None) => false,
        (None, Some(_)) => true,
        (Some(l), Some(m)) => {
            let pos = |s: &crate::plan::Setting| {
                job.settings
                    .iter()
                    .rposition(|x| std::ptr::eq(x, s))
                    .unwrap_or(0)
            };
            pos(m) > pos(l)
        }
    };
    let text = |s: &crate::plan::Setting| s.text.clone().unwrap_or_default();
    if later_is_mask {
        let raw = text(mask?);
        let bits = match crate::options::number::size(raw.trim(), 1024) {
            Some(crate::options::number::SizeValue::Bytes(b)) => b,
            _ => 0,
        };
        // fio reads the mask as an int's worth of bits.
        return Some((0..32).filter(|i| bits & (1 << i) != 0).collect());
    }
    // A blank list names no CPU.
    match &list?.value {
        Value::CpuList(cpus) => Some(cpus.clone()),
        _ => Some(Vec::new()),
    }
}

/// fio's exec_prerun/exec_postrun: the command through the shell, its
/// output saved in `<job>.<mode>.txt`. Returns whether it succeeded.
fn exec(name: &str, cmd: &str, mode: &str) -> bool {
    use std::io::Write;
    // A closed stdout must not end the job: the command still runs.
    let _ = writeln!(
        io::stdout(),
        "{name} : Saving output of {mode} in {name}.{mode}.txt"
    );
    let line = format!("{cmd} > {name}.{mode}.txt 2>&1");
    match std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(&line)
        .status()
    {
        Ok(s) => s.success(),
        Err(_) => {
            eprintln!("fio: exec of cmd <{line}> failed");
            false
        }
    }
}
