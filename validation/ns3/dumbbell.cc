// ns-3.37 twin of scenarios/ns3-dumbbell.toml (validation/compare_ns3.py): N long-lived TCP flows of one
// congestion control over a dumbbell whose bottleneck R1->R2 runs the queue discipline under test.
// Prints one JSON line: goodput per flow, the bottleneck's arrivals, drops, marks and mean queue (queue disc
// plus the device's one-packet transmit queue), and the first flow's congestion window every 100 ms.
//
// Every choice mirrors the aqmlab scenario; docs/validation-ns3.md says why each differs from ns-3's default:
// - segments of 1460 B without TCP options (no timestamps, no SACK), so data packets are 1500 B and ACKs
//   40 B as in aqmlab; PPP adds 2 B per packet on the wire (0.13 % of a data packet's time).
// - NewReno-style recovery without SACK (TcpClassicRecovery), no limited transmit, initial window 10,
//   delayed ACKs every 2 segments or 200 ms, min RTO 200 ms at 1-ms clock granularity, send and receive
//   buffers of 16 MB (window never limited by them), CUBIC without HyStart.
// - every device's own transmit queue holds 1 packet, so packets wait in the queue discs, where they are
//   counted; access links and the reverse bottleneck run a 1000-packet FIFO (FifoQueueDisc).
//
// Build: validation/ns3/build.sh.  Run: dumbbell --cc=cubic --queue=codel --seed=1 [--ecn] ...

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

std::vector<Ptr<PacketSink>> g_sinks;
std::vector<uint64_t> g_rxAtWarmup;
Ptr<QueueDisc> g_bottleneck;
Ptr<Queue<Packet>> g_deviceQueue; // the bottleneck device's own 1-packet transmit queue
double g_qSum = 0;
uint64_t g_qSamples = 0;
uint32_t g_cwndBytes = 0;
std::vector<double> g_cwndSamples;
uint64_t g_arrivalsAtWarmup = 0, g_dropsAtWarmup = 0, g_marksAtWarmup = 0;

void
OnCwnd(uint32_t, uint32_t now)
{
    g_cwndBytes = now;
}

void
SampleQueue(Time interval)
{
    // Waiting packets, the one on the wire excluded (aqmlab's definition): the queue disc's and the one
    // the device holds ready behind the packet it is sending.
    g_qSum += g_bottleneck->GetNPackets() + g_deviceQueue->GetNPackets();
    g_qSamples++;
    Simulator::Schedule(interval, &SampleQueue, interval);
}

void
SampleCwnd(Time interval, uint32_t mss)
{
    g_cwndSamples.push_back(double(g_cwndBytes) / mss);
    Simulator::Schedule(interval, &SampleCwnd, interval, mss);
}

void
TraceFirstFlow(uint32_t nodeId)
{
    std::ostringstream path;
    path << "/NodeList/" << nodeId << "/$ns3::TcpL4Protocol/SocketList/0/CongestionWindow";
    Config::ConnectWithoutContext(path.str(), MakeCallback(&OnCwnd));
}

void
AtWarmup()
{
    for (size_t i = 0; i < g_sinks.size(); i++)
    {
        g_rxAtWarmup[i] = g_sinks[i]->GetTotalRx();
    }
    const QueueDisc::Stats& s = g_bottleneck->GetStats();
    g_arrivalsAtWarmup = s.nTotalReceivedPackets;
    g_dropsAtWarmup = s.nTotalDroppedPackets;
    g_marksAtWarmup = s.nTotalMarkedPackets;
}

// The queue discipline under test, with aqmlab's parameters where ns-3's defaults differ from them.
TrafficControlHelper
QueueUnderTest(const std::string& kind, bool ecn, uint32_t limit)
{
    static const std::map<std::string, std::string> aqms = {
        {"codel", "ns3::CoDelQueueDisc"},
        {"fq_codel", "ns3::FqCoDelQueueDisc"},
        {"pie", "ns3::PieQueueDisc"},
        {"fq_pie", "ns3::FqPieQueueDisc"},
        {"cobalt", "ns3::CobaltQueueDisc"},
    };
    TrafficControlHelper tch;
    const StringValue size(std::to_string(limit) + "p");
    if (kind == "droptail")
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", size);
    }
    else if (kind == "fq_codel_l4s")
    {
        // ns-3's L4S mode: ECT(1) packets CE-marked above a 1-ms sojourn.
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                             "MaxSize",
                             size,
                             "UseEcn",
                             BooleanValue(true),
                             "UseL4s",
                             BooleanValue(true),
                             "CeThreshold",
                             TimeValue(MilliSeconds(1)));
    }
    else if (kind == "codel_ce")
    {
        // Linux's ce_threshold: every ECN-capable packet CE-marked above a 1-ms sojourn.
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc",
                             "MaxSize",
                             size,
                             "UseEcn",
                             BooleanValue(true),
                             "CeThreshold",
                             TimeValue(MilliSeconds(1)));
    }
    else if (aqms.count(kind))
    {
        tch.SetRootQueueDisc(aqms.at(kind), "MaxSize", size, "UseEcn", BooleanValue(ecn));
    }
    else
    {
        NS_FATAL_ERROR("unknown --queue " << kind);
    }
    return tch;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string cc = "cubic";
    std::string queue = "droptail";
    uint32_t flows = 2;
    uint32_t limit = 1000;
    uint32_t seed = 1;
    bool ecn = false;
    bool ect1 = false;
    std::string rate = "50Mbps";
    double bottleneckDelayMs = 30;
    double accessDelayMs = 5;
    double duration = 60;
    double warmup = 20;
    double startMax = 1;

    CommandLine cmd;
    cmd.AddValue("cc", "newreno, cubic or dctcp", cc);
    cmd.AddValue("queue", "bottleneck queue discipline", queue);
    cmd.AddValue("flows", "number of flows", flows);
    cmd.AddValue("limit", "bottleneck buffer, packets", limit);
    cmd.AddValue("seed", "run number", seed);
    cmd.AddValue("ecn", "negotiate ECN", ecn);
    cmd.AddValue("ect1", "DCTCP sends ECT(1)", ect1);
    cmd.AddValue("rate", "bottleneck rate", rate);
    cmd.AddValue("bottleneckDelayMs", "bottleneck one-way delay", bottleneckDelayMs);
    cmd.AddValue("accessDelayMs", "each access link's one-way delay", accessDelayMs);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds before measuring", warmup);
    cmd.AddValue("startMax", "each flow starts at a uniform time in [0, startMax) seconds", startMax);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    const uint32_t mss = 1460;
    std::string tcpType = cc == "newreno" ? "ns3::TcpNewReno"
                          : cc == "cubic" ? "ns3::TcpCubic"
                          : cc == "dctcp" ? "ns3::TcpDctcp"
                                          : "";
    if (tcpType.empty())
    {
        NS_FATAL_ERROR("unknown --cc " << cc);
    }
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TypeId::LookupByName(tcpType)));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpClassicRecovery")));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn",
                       StringValue(ecn || cc == "dctcp" ? "On" : "Off"));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    Config::SetDefault("ns3::TcpDctcp::UseEct0", BooleanValue(!ect1));

    NodeContainer senders, receivers, routers;
    senders.Create(flows);
    receivers.Create(flows);
    routers.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    access.SetChannelAttribute("Delay", TimeValue(MicroSeconds(uint64_t(accessDelayMs * 1000))));
    access.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(rate));
    bottleneck.SetChannelAttribute("Delay", TimeValue(MicroSeconds(uint64_t(bottleneckDelayMs * 1000))));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("1000p"));
    Ipv4AddressHelper addresses;
    addresses.SetBase("10.0.0.0", "255.255.255.0");
    auto connect = [&](PointToPointHelper& p2p, Ptr<Node> a, Ptr<Node> b) {
        NetDeviceContainer d = p2p.Install(a, b);
        Ipv4InterfaceContainer ifs = addresses.Assign(d);
        addresses.NewNetwork();
        return std::make_pair(d, ifs);
    };

    std::vector<Ipv4Address> receiverAddresses;
    NetDeviceContainer accessDevices;
    for (uint32_t i = 0; i < flows; i++)
    {
        accessDevices.Add(connect(access, senders.Get(i), routers.Get(0)).first);
        auto [d, ifs] = connect(access, routers.Get(1), receivers.Get(i));
        accessDevices.Add(d);
        receiverAddresses.push_back(ifs.GetAddress(1));
    }
    NetDeviceContainer core = connect(bottleneck, routers.Get(0), routers.Get(1)).first;

    // InternetStackHelper gave each device ns-3's default queue disc (FQ-CoDel): replace them.
    TrafficControlHelper none;
    none.Uninstall(accessDevices);
    none.Uninstall(core);
    fifo.Install(accessDevices);
    QueueDiscContainer qd = QueueUnderTest(queue, ecn, limit).Install(core.Get(0));
    fifo.Install(core.Get(1));
    g_bottleneck = qd.Get(0);
    g_deviceQueue = DynamicCast<PointToPointNetDevice>(core.Get(0))->GetQueue();

    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 5000;
    Ptr<UniformRandomVariable> startAt = CreateObject<UniformRandomVariable>();
    for (uint32_t i = 0; i < flows; i++)
    {
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(receivers.Get(i));
        s.Start(Seconds(0));
        g_sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(receiverAddresses[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(mss * 10));
        ApplicationContainer b = bulk.Install(senders.Get(i));
        b.Start(Seconds(startAt->GetValue(0, startMax)));
    }
    g_rxAtWarmup.assign(flows, 0);

    // The first flow's socket exists once its application has started (at startMax at the latest).
    Simulator::Schedule(Seconds(startMax), &TraceFirstFlow, senders.Get(0)->GetId());
    Simulator::Schedule(Seconds(warmup), &AtWarmup);
    Simulator::Schedule(Seconds(warmup), &SampleQueue, MilliSeconds(10));
    Simulator::Schedule(Seconds(0.1), &SampleCwnd, MilliSeconds(100), mss);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    const double window = duration - warmup;
    const QueueDisc::Stats& st = g_bottleneck->GetStats();
    std::ostringstream out;
    out << "{\"simulator\":\"ns-3.37\",\"cc\":\"" << cc << "\",\"queue\":\"" << queue
        << "\",\"ecn\":" << (ecn ? "true" : "false") << ",\"seed\":" << seed << ",\"goodput_mbps\":[";
    for (uint32_t i = 0; i < flows; i++)
    {
        out << (i ? "," : "") << (g_sinks[i]->GetTotalRx() - g_rxAtWarmup[i]) * 8.0 / window / 1e6;
    }
    out << "],\"arrivals\":" << st.nTotalReceivedPackets - g_arrivalsAtWarmup
        << ",\"drops\":" << st.nTotalDroppedPackets - g_dropsAtWarmup
        << ",\"marks\":" << st.nTotalMarkedPackets - g_marksAtWarmup
        << ",\"q_mean_pkts\":" << (g_qSamples ? g_qSum / g_qSamples : 0.0) << ",\"cwnd\":[";
    for (size_t i = 0; i < g_cwndSamples.size(); i++)
    {
        out << (i ? "," : "") << g_cwndSamples[i];
    }
    out << "]}";
    std::printf("%s\n", out.str().c_str());
    Simulator::Destroy();
    return 0;
}
