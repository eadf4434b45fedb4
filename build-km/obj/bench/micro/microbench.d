build-km/obj/bench/micro/microbench.o: bench/micro/microbench.c \
  src/config/config.h src/platform/log.h src/model/signal.h \
  include/enav/abi.h src/model/cgroup_path.h src/model/l7_op.h \
  src/model/protocols.h src/platform/promtext.h src/platform/protobuf.h \
  src/runtime/runner.h src/runtime/host.h src/probe/features.h \
  src/exporters/ndjson/ndjson.h src/platform/json.h \
  src/exporters/otlp/otlp_spans.h src/exporters/otlp/otlp_encode.h \
  src/exporters/otlp/otlp_env.h src/features/network/l7/l7.h \
  src/features/network/l7/l7_conn.h src/features/network/net_decode.h \
  src/runtime/event_decode.h src/features/network/red_metrics.h

src/config/config.h:

src/platform/log.h:

src/model/signal.h:

include/enav/abi.h:

src/model/cgroup_path.h:

src/model/l7_op.h:

src/model/protocols.h:

src/platform/promtext.h:

src/platform/protobuf.h:

src/runtime/runner.h:

src/runtime/host.h:

src/probe/features.h:

src/exporters/ndjson/ndjson.h:

src/platform/json.h:

src/exporters/otlp/otlp_spans.h:

src/exporters/otlp/otlp_encode.h:

src/exporters/otlp/otlp_env.h:

src/features/network/l7/l7.h:

src/features/network/l7/l7_conn.h:

src/features/network/net_decode.h:

src/runtime/event_decode.h:

src/features/network/red_metrics.h:
