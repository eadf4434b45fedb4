build-km/obj/src/features/network/net_source.o: \
  src/features/network/net_source.c src/features/network/net_source.h \
  src/probe/features.h src/config/config.h src/platform/log.h \
  src/runtime/host.h src/platform/promtext.h src/model/signal.h \
  include/enav/abi.h src/model/cgroup_path.h src/model/l7_op.h \
  src/model/protocols.h src/platform/clock.h src/platform/u64map.h \
  build-km/bpf/net_perf.skel.h build-km/bpf/net_ringbuf.skel.h \
  src/features/network/dns.h src/features/network/l7/l7_conn.h \
  src/features/network/l7/l7.h src/runtime/bpf_source.h \
  src/runtime/bpf_refusal.h src/runtime/event_decode.h \
  src/runtime/transport.h src/features/network/net_decode.h \
  src/features/network/tls/tls_attach.h

src/features/network/net_source.h:

src/probe/features.h:

src/config/config.h:

src/platform/log.h:

src/runtime/host.h:

src/platform/promtext.h:

src/model/signal.h:

include/enav/abi.h:

src/model/cgroup_path.h:

src/model/l7_op.h:

src/model/protocols.h:

src/platform/clock.h:

src/platform/u64map.h:

build-km/bpf/net_perf.skel.h:

build-km/bpf/net_ringbuf.skel.h:

src/features/network/dns.h:

src/features/network/l7/l7_conn.h:

src/features/network/l7/l7.h:

src/runtime/bpf_source.h:

src/runtime/bpf_refusal.h:

src/runtime/event_decode.h:

src/runtime/transport.h:

src/features/network/net_decode.h:

src/features/network/tls/tls_attach.h:
