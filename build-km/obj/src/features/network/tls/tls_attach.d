build-km/obj/src/features/network/tls/tls_attach.o: \
  src/features/network/tls/tls_attach.c \
  src/features/network/tls/tls_attach.h src/platform/promtext.h \
  src/platform/clock.h src/platform/log.h src/platform/u64map.h \
  include/enav/abi.h src/features/network/l7/l7.h src/model/l7_op.h \
  src/model/protocols.h src/platform/proc_lines.h \
  src/runtime/bpf_source.h src/runtime/host.h src/config/config.h \
  src/model/signal.h src/model/cgroup_path.h src/probe/features.h \
  src/runtime/bpf_refusal.h src/runtime/event_decode.h \
  src/runtime/transport.h src/features/network/tls/go_tls.h \
  src/features/network/tls/tls_sites.h

src/features/network/tls/tls_attach.h:

src/platform/promtext.h:

src/platform/clock.h:

src/platform/log.h:

src/platform/u64map.h:

include/enav/abi.h:

src/features/network/l7/l7.h:

src/model/l7_op.h:

src/model/protocols.h:

src/platform/proc_lines.h:

src/runtime/bpf_source.h:

src/runtime/host.h:

src/config/config.h:

src/model/signal.h:

src/model/cgroup_path.h:

src/probe/features.h:

src/runtime/bpf_refusal.h:

src/runtime/event_decode.h:

src/runtime/transport.h:

src/features/network/tls/go_tls.h:

src/features/network/tls/tls_sites.h:
