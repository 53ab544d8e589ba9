//! The net engines' entries in the engine table: their options, read
//! from the job, and their maker.

use std::io;

use super::api::{Engine, OptionSource};
use super::net::{Net, NetOptions, Proto};
use crate::options::Value;

/// net's options, as the job sets them.
pub fn net(src: &OptionSource) -> NetOptions {
    decode(src, false)
}

/// netsplice's options: net's, moving the data with splice(2).
pub fn netsplice(src: &OptionSource) -> NetOptions {
    decode(src, true)
}

/// The link's settings: hostname (or the file name) and port, the port
/// moved on by the clone's number as fio does.
fn decode(src: &OptionSource, splice: bool) -> NetOptions {
    let job = src.job;
    let port = job.num("port").unwrap_or(0) as u32;
    NetOptions {
        proto: match job.value("protocol") {
            Some(Value::Word { word: "tcpv6", .. }) => Proto::TcpV6,
            Some(Value::Word { word: "udp", .. }) => Proto::Udp,
            Some(Value::Word { word: "udpv6", .. }) => Proto::UdpV6,
            Some(Value::Word { word: "unix", .. }) => Proto::Unix,
            _ => Proto::Tcp,
        },
        host: super::api::text(job, "hostname").or_else(|| job.filenames().first().cloned()),
        port: if port == 0 { 0 } else { port + job.subjob },
        listen: job.flag("listen"),
        nodelay: job.flag("nodelay"),
        pingpong: job.flag("pingpong"),
        window_size: job.num("window_size").unwrap_or(0) as u32,
        mss: job.num("mss").unwrap_or(0) as u32,
        splice,
        reads: src.reads,
        writes: src.writes,
        random: src.random,
        size: src.size,
        interface: super::api::text(job, "interface"),
        ttl: job.num("ttl").unwrap_or(1) as u32,
    }
}

/// The table's maker, for both.
pub fn make(_: usize, options: &NetOptions) -> io::Result<Box<dyn Engine>> {
    Net::new(options.clone()).map(|e| Box::new(e) as Box<dyn Engine>)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineOptions;

    /// The options of each job of a job file, read as its engine reads them.
    fn decoded(text: &str) -> Vec<EngineOptions> {
        let plan = crate::plan::plan_for_test(text, &[], &[], false).unwrap();
        plan.jobs()
            .map(|job| {
                let kind = crate::engine::kind(&job.engine).unwrap();
                kind.options(&OptionSource {
                    job,
                    reads: false,
                    writes: true,
                    random: false,
                    size: 4096,
                    direct: false,
                    default_ioprio: 0,
                })
            })
            .collect()
    }

    #[test]
    fn clones_move_the_port_and_netsplice_splices() {
        let text = "[a]\nioengine=netsplice\nhostname=localhost\nport=8888\nnumjobs=2\n\
                    [b]\nioengine=net\nfilename=peer\nprotocol=udp\n";
        let got = decoded(text);
        let net = |i: usize| match &got[i] {
            EngineOptions::Net(o) => o.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            (net(0).port, net(1).port, net(0).splice),
            (8888, 8889, true)
        );
        assert_eq!(net(0).host.as_deref(), Some("localhost"));
        let b = net(2);
        assert_eq!(
            (b.proto, b.host.as_deref(), b.port, b.splice),
            (Proto::Udp, Some("peer"), 0, false)
        );
        assert_eq!((b.writes, b.reads, b.size, b.ttl), (true, false, 4096, 1));
    }
}
