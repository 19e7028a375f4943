#include <unordered_map>
#include <set>
#include <vector>
#include <list>
#include <cstring>
namespace bufferlab_ns3 {
using namespace ns3;

// Streams one link's statistics from trace sources, without scheduling events of its own.
struct Monitor {
  int64_t t0_ns = 0, warm_ns = 0, end_ns = 0, sample_ns = 0, next_sample_ns = 0, last_ns = 0;
  uint32_t q_disc = 0, q_dev = 0;
  std::vector<double> hist_ns;            // time spent at each queue length inside the window
  std::vector<double> series_t;           // sampled queue (time relative to t0)
  std::vector<uint32_t> series_q;
  uint64_t arrivals = 0, enqueued = 0, drops_overflow = 0, drops_early = 0, drops_forced = 0,
           drops_other = 0, marks = 0, departures = 0, tx_bytes = 0, tx_total = 0, drops_total = 0;
  std::unordered_map<uint64_t, int64_t> enq_time;
  double delay_sum = 0.0, delay_sq = 0.0;
  uint64_t delay_n = 0;
  std::vector<float> delays;

  bool InWin(int64_t t) const { return t >= warm_ns && t <= end_ns; }
  uint32_t Q() const { return q_disc + q_dev; }
  void Advance() {
    int64_t now = Simulator::Now().GetNanoSeconds();
    while (sample_ns > 0 && next_sample_ns <= now && next_sample_ns <= end_ns) {
      series_t.push_back((next_sample_ns - t0_ns) * 1e-9);
      series_q.push_back(Q());
      next_sample_ns += sample_ns;
    }
    int64_t a = std::max(last_ns, warm_ns), b = std::min(now, end_ns);
    if (b > a) {
      uint32_t q = Q();
      if (q >= hist_ns.size()) hist_ns.resize(q + 1, 0.0);
      hist_ns[q] += double(b - a);
    }
    last_ns = now;
  }
  void Finish() { Advance(); }
  void DiscLen(uint32_t, uint32_t v) { Advance(); q_disc = v; }
  void DevLen(uint32_t, uint32_t v) { Advance(); q_dev = v; }
  void Enq(Ptr<const QueueDiscItem> item) {
    int64_t now = Simulator::Now().GetNanoSeconds();
    enq_time[item->GetPacket()->GetUid()] = now;
    if (InWin(now)) { arrivals++; enqueued++; }
  }
  // A packet refused at enqueue arrived and was dropped; one dropped after dequeue (CoDel's control law,
  // FQ-CoDel's batch drops from the fattest queue) was counted as an arrival when it was enqueued.
  void DropBefore(Ptr<const QueueDiscItem> item, const char* reason) { Drop(item, reason, true); }
  void DropAfter(Ptr<const QueueDiscItem> item, const char* reason) { Drop(item, reason, false); }
  void Drop(Ptr<const QueueDiscItem> item, const char* reason, bool arrival) {
    int64_t now = Simulator::Now().GetNanoSeconds();
    drops_total++;
    enq_time.erase(item->GetPacket()->GetUid());
    if (!InWin(now)) return;
    if (arrival) arrivals++;
    // Drops by a child queue disc (FQ-CoDel's per-flow CoDel) carry its reason after a prefix.
    const char* prefix = "(Dropped by child queue disc) ";
    if (std::strncmp(reason, prefix, std::strlen(prefix)) == 0) reason += std::strlen(prefix);
    if (std::strcmp(reason, "Unforced drop") == 0) drops_early++;
    else if (std::strcmp(reason, "Forced drop") == 0) drops_forced++;
    else if (std::strcmp(reason, "Queue disc limit exceeded") == 0) drops_overflow++;
    else if (std::strcmp(reason, "Overlimit drop") == 0) drops_overflow++;      // CoDel's, FQ-CoDel's limit
    else if (std::strcmp(reason, "Target exceeded drop") == 0) drops_early++;   // CoDel's control law
    else drops_other++;
  }
  void Mark(Ptr<const QueueDiscItem>, const char*) {
    if (InWin(Simulator::Now().GetNanoSeconds())) marks++;
  }
  void TxBegin(Ptr<const Packet> p) {
    int64_t now = Simulator::Now().GetNanoSeconds();
    auto it = enq_time.find(p->GetUid());
    if (it == enq_time.end()) return;
    if (InWin(it->second)) {
      double d = (now - it->second) * 1e-9;
      delay_sum += d; delay_sq += d * d; delay_n++;
      delays.push_back(float(d));
    }
    enq_time.erase(it);
  }
  void TxEnd(Ptr<const Packet> p) {
    tx_total++;
    if (InWin(Simulator::Now().GetNanoSeconds())) { departures++; tx_bytes += p->GetSize(); }
  }
};

void Attach(Monitor* m, Ptr<QueueDisc> qd, Ptr<PointToPointNetDevice> dev) {
  qd->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&Monitor::DiscLen, m));
  qd->TraceConnectWithoutContext("Enqueue", MakeCallback(&Monitor::Enq, m));
  qd->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&Monitor::DropBefore, m));
  qd->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&Monitor::DropAfter, m));
  qd->TraceConnectWithoutContext("Mark", MakeCallback(&Monitor::Mark, m));
  dev->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&Monitor::DevLen, m));
  dev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Monitor::TxBegin, m));
  dev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&Monitor::TxEnd, m));
}

typedef std::vector<std::pair<std::string, std::string>> Attributes;

// Set a socket's attributes; "CongestionOps" names the socket's own congestion control type (a group's
// controller when it differs from TcpL4Protocol::SocketType), built with that type's attribute defaults.
void Apply(Ptr<Socket> s, const Attributes& attrs) {
  for (auto& kv : attrs) {
    if (kv.first == "CongestionOps") {
      ObjectFactory factory;
      factory.SetTypeId(kv.second);
      DynamicCast<TcpSocketBase>(s)->SetCongestionControlAlgorithm(factory.Create<TcpCongestionOps>());
    } else {
      s->SetAttribute(kv.first, StringValue(kv.second));
    }
  }
}

// A bulk TCP sender: BulkSendApplication's sequence of socket calls (unlimited bytes), with the group's
// own socket attributes set before the socket connects.
class Sender : public Application {
 public:
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("bufferlab::Sender").SetParent<Application>().SetGroupName("BufferLab");
    return tid;
  }
  Address peer;
  uint32_t send_size = 536;
  Attributes attrs;
  Ptr<Socket> socket;
  bool connected = false;
  Ptr<Packet> unsent;
  // Over the whole run: retransmission timeouts (each expiry with data outstanding), entries into fast
  // recovery (CA_RECOVERY), and retransmitted segments.
  uint64_t timeouts = 0, fast_recoveries = 0, retransmits = 0;
  // Timeouts inside the measurement window (from warm_ns on) by cause, as the engine's
  // `timeouts_by_cause`: the first unacknowledged segment had been retransmitted (lost retransmission);
  // else the state the timer fired in: fast recovery, open/disorder/CWR (too few duplicate ACKs), loss.
  int64_t warm_ns = 0;
  uint64_t window_lost_retransmission = 0, window_during_recovery = 0, window_insufficient_dupacks = 0,
           window_other = 0;

 private:
  TcpSocketState::TcpCongState_t state = TcpSocketState::CA_OPEN;
  uint32_t una = 0;
  std::set<uint32_t> resent;  // sequence numbers at or above SND.UNA that have been retransmitted
  void CongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now) {
    state = now;
    if (now == TcpSocketState::CA_RECOVERY) fast_recoveries++;
  }
  void Retransmitted(Ptr<const Packet>, const TcpHeader& h, const Address&, const Address&,
                     Ptr<const TcpSocketBase>) {
    retransmits++;
    resent.insert(h.GetSequenceNumber().GetValue());
  }
  void Acked(SequenceNumber32, SequenceNumber32 now) {
    una = now.GetValue();
    resent.erase(resent.begin(), resent.lower_bound(una));
  }
  // ReTxTimeout is the only place that doubles the RTO (RFC 6298 5.5, capped at 60 s); a new RTT
  // estimate recomputes it from scratch, the SYN's backoff happens before the connection opens.
  void Rto(Time before, Time now) {
    if (!connected) return;
    bool doubled = now == before + before || (now == Seconds(60) && before + before > now);
    if (!doubled) return;
    timeouts++;
    if (Simulator::Now().GetNanoSeconds() < warm_ns) return;
    if (resent.count(una)) window_lost_retransmission++;
    else if (state == TcpSocketState::CA_RECOVERY) window_during_recovery++;
    else if (state == TcpSocketState::CA_LOSS) window_other++;
    else window_insufficient_dupacks++;
  }
  void StartApplication() override {
    if (!socket) {
      socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
      Apply(socket, attrs);
      if (socket->Bind() == -1) NS_FATAL_ERROR("Failed to bind socket");
      socket->SetIpTos(0);
      socket->Connect(peer);
      socket->ShutdownRecv();
      socket->SetConnectCallback(MakeCallback(&Sender::Connected, this), MakeCallback(&Sender::Failed, this));
      socket->SetSendCallback(MakeCallback(&Sender::DataSend, this));
      socket->TraceConnectWithoutContext("CongState", MakeCallback(&Sender::CongState, this));
      socket->TraceConnectWithoutContext("Retransmission", MakeCallback(&Sender::Retransmitted, this));
      socket->TraceConnectWithoutContext("HighestRxAck", MakeCallback(&Sender::Acked, this));
      socket->TraceConnectWithoutContext("RTO", MakeCallback(&Sender::Rto, this));
    }
    if (connected) SendData();
  }
  void StopApplication() override {
    if (socket) { socket->Close(); connected = false; }
  }
  void SendData() {
    while (true) {
      Ptr<Packet> packet = unsent ? unsent : Create<Packet>(send_size);
      uint32_t size = packet->GetSize();
      int actual = socket->Send(packet);
      if (actual >= 0 && uint32_t(actual) == size) {
        unsent = nullptr;
      } else if (actual == -1) {
        unsent = packet;  // the send buffer is full; DataSend resumes
        break;
      } else if (actual > 0) {
        unsent = packet->CreateFragment(actual, size - uint32_t(actual));
        break;
      } else {
        NS_FATAL_ERROR("Unexpected return value from Socket::Send");
      }
    }
  }
  void Connected(Ptr<Socket>) { connected = true; SendData(); }
  void Failed(Ptr<Socket>) {}
  void DataSend(Ptr<Socket>, uint32_t) { if (connected) SendData(); }
};

// A TCP sink: PacketSink's sequence of socket calls, with the group's socket attributes set on the
// listening socket, which every accepted socket copies (TcpSocketBase's fork).
class Sink : public Application {
 public:
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("bufferlab::Sink").SetParent<Application>().SetGroupName("BufferLab");
    return tid;
  }
  uint16_t port = 0;
  Attributes attrs;
  Ptr<Socket> listener;
  std::list<Ptr<Socket>> accepted;
  uint64_t total_rx = 0;
  uint64_t GetTotalRx() const { return total_rx; }

 private:
  void StartApplication() override {
    if (!listener) {
      listener = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
      Apply(listener, attrs);
      if (listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)) == -1)
        NS_FATAL_ERROR("Failed to bind socket");
      listener->Listen();
      listener->ShutdownSend();
      listener->SetRecvCallback(MakeCallback(&Sink::HandleRead, this));
      listener->SetRecvPktInfo(true);
      listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                  MakeCallback(&Sink::HandleAccept, this));
    }
  }
  void StopApplication() override {
    for (auto& s : accepted) s->Close();
    accepted.clear();
    if (listener) listener->Close();
  }
  void HandleRead(Ptr<Socket> s) {
    Address from;
    while (Ptr<Packet> p = s->RecvFrom(from)) {
      if (p->GetSize() == 0) break;
      total_rx += p->GetSize();
    }
  }
  void HandleAccept(Ptr<Socket> s, const Address&) {
    s->SetRecvCallback(MakeCallback(&Sink::HandleRead, this));
    accepted.push_back(s);
  }
};

Ptr<Sender> AddSender(Ptr<Node> node, Ipv4Address dst, uint16_t port, uint32_t send_size, double start_s) {
  Ptr<Sender> app = CreateObject<Sender>();
  app->peer = InetSocketAddress(dst, port);
  app->send_size = send_size;
  node->AddApplication(app);
  app->SetStartTime(Seconds(start_s));
  return app;
}
Ptr<Sink> AddSink(Ptr<Node> node, uint16_t port) {
  Ptr<Sink> app = CreateObject<Sink>();
  app->port = port;
  node->AddApplication(app);
  app->SetStartTime(Seconds(0.0));
  return app;
}
void SetAttr(Attributes& attrs, std::string name, std::string value) { attrs.emplace_back(name, value); }
void SetWarmup(Ptr<Sender> s, int64_t warm_ns) { s->warm_ns = warm_ns; }

struct Snapshot {
  std::vector<Ptr<Sink>> sinks;
  std::vector<uint64_t> at_warmup;
  void Take() { at_warmup.clear(); for (auto& s : sinks) at_warmup.push_back(s->GetTotalRx()); }
};
void ScheduleSnapshot(Snapshot* s, double at_s) { Simulator::Schedule(Seconds(at_s), &Snapshot::Take, s); }
Ptr<PointToPointNetDevice> AsP2P(Ptr<NetDevice> d) { return DynamicCast<PointToPointNetDevice>(d); }
// TcpSocketBase's UseEcn attribute has no getter: read the socket state's field.
struct EcnPeek : public TcpSocketBase {
  static std::string Get(Ptr<TcpSocketBase> s) {
    switch ((PeekPointer(s)->*(&EcnPeek::m_tcb))->m_useEcn) {
      case TcpSocketState::On: return "On";
      case TcpSocketState::Off: return "Off";
      default: return "AcceptOnly";
    }
  }
};
std::string GetAttr(Ptr<Object> o, std::string name) {
  TypeId::AttributeInformation info;
  if (!o || !o->GetInstanceTypeId().LookupAttributeByName(name, &info)) return "?";
  Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(o);
  if (tcp && name == "UseEcn") return EcnPeek::Get(tcp);
  // RED's Alpha and Beta have setters only; their getters are methods.
  Ptr<RedQueueDisc> red = DynamicCast<RedQueueDisc>(o);
  if (red && name == "Alpha") return std::to_string(red->GetAredAlpha());
  if (red && name == "Beta") return std::to_string(red->GetAredBeta());
  if (!(info.flags & TypeId::ATTR_GET) || !info.accessor->HasGetter()) return "?";
  Ptr<AttributeValue> v = info.checker->Create();
  o->GetAttribute(name, *v);
  return v->SerializeToString(info.checker);
}
Ptr<Object> SenderSocket(Ptr<Sender> s) { return s->socket; }
Ptr<Object> SinkSocket(Ptr<Sink> s) { return s->listener; }
// RED's random variable gets a fixed stream: ns-3 numbers streams of random variables automatically
// from a process-wide counter, so a second simulation in the same process would draw from another one.
void FixStreams(Ptr<QueueDisc> qd, int64_t stream) {
  Ptr<RedQueueDisc> red = DynamicCast<RedQueueDisc>(qd);
  if (red) red->AssignStreams(stream);
  Ptr<PieQueueDisc> pie = DynamicCast<PieQueueDisc>(qd);
  if (pie) pie->AssignStreams(stream);
}
// FQ-CoDel's DRR quantum has a setter but no attribute.
void SetFqQuantum(Ptr<QueueDisc> qd, uint32_t quantum) {
  Ptr<FqCoDelQueueDisc> fq = DynamicCast<FqCoDelQueueDisc>(qd);
  if (fq) fq->SetQuantum(quantum);
}
uint32_t GetFqQuantum(Ptr<QueueDisc> qd) {
  Ptr<FqCoDelQueueDisc> fq = DynamicCast<FqCoDelQueueDisc>(qd);
  return fq ? fq->GetQuantum() : 0;
}
// tcp.overhead (ns-2's overhead_): a sender's packets wait a uniform random time in [0, most] before
// its access device takes them, in order (a packet never leaves before the one ahead of it).
class JitterQueueDisc : public QueueDisc {
 public:
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("bufferlab::JitterQueueDisc").SetParent<QueueDisc>().SetGroupName("BufferLab")
                            .AddConstructor<JitterQueueDisc>();
    return tid;
  }
  JitterQueueDisc() : QueueDisc(QueueDiscSizePolicy::NO_LIMITS) {}
  Time most;
  Ptr<UniformRandomVariable> draw = CreateObject<UniformRandomVariable>();
  std::deque<Time> ready;
  Time last;

 private:
  bool DoEnqueue(Ptr<QueueDiscItem> item) override {
    Time t = Max(Simulator::Now() + Seconds(draw->GetValue(0.0, most.GetSeconds())), last);
    last = t;
    ready.push_back(t);
    GetInternalQueue(0)->Enqueue(item);
    Simulator::Schedule(t - Simulator::Now(), &JitterQueueDisc::Run, this);
    return true;
  }
  Ptr<QueueDiscItem> DoDequeue() override {
    if (ready.empty() || ready.front() > Simulator::Now()) return nullptr;
    ready.pop_front();
    return GetInternalQueue(0)->Dequeue();
  }
  Ptr<const QueueDiscItem> DoPeek() override {
    if (ready.empty() || ready.front() > Simulator::Now()) return nullptr;
    return GetInternalQueue(0)->Peek();
  }
  bool CheckConfig() override {
    if (GetNInternalQueues() == 0) {
      AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
          "MaxSize", QueueSizeValue(QueueSize("1000000p"))));
    }
    return true;
  }
  void InitializeParams() override {}
};

// The TypeId is registered when first asked for (cppyy runs no static registration).
std::string JitterTypeName() { return JitterQueueDisc::GetTypeId().GetName(); }
void SetJitter(Ptr<QueueDisc> qd, double most_s, int64_t stream) {
  Ptr<JitterQueueDisc> j = DynamicCast<JitterQueueDisc>(qd);
  j->most = Seconds(most_s);
  j->draw->SetStream(stream);
}

int CountRootQdiscs(NetDeviceContainer devs) {
  int c = 0;
  for (uint32_t i = 0; i < devs.GetN(); i++) {
    Ptr<TrafficControlLayer> tc = devs.Get(i)->GetNode()->GetObject<TrafficControlLayer>();
    if (tc && tc->GetRootQueueDiscOnDevice(devs.Get(i))) c++;
  }
  return c;
}
}  // namespace bufferlab_ns3
