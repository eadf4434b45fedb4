build-km/obj/src/exporters/otlp/otlp_spans.o: \
  src/exporters/otlp/otlp_spans.c src/exporters/otlp/otlp_spans.h \
  src/model/signal.h include/enav/abi.h src/model/cgroup_path.h \
  src/model/l7_op.h src/model/protocols.h \
  src/exporters/otlp/otlp_encode.h src/platform/protobuf.h \
  src/exporters/otlp/otlp_env.h src/platform/numfmt.h \
  src/discovery/k8s.h src/config/config.h src/platform/log.h \
  src/platform/promtext.h

src/exporters/otlp/otlp_spans.h:

src/model/signal.h:

include/enav/abi.h:

src/model/cgroup_path.h:

src/model/l7_op.h:

src/model/protocols.h:

src/exporters/otlp/otlp_encode.h:

src/platform/protobuf.h:

src/exporters/otlp/otlp_env.h:

src/platform/numfmt.h:

src/discovery/k8s.h:

src/config/config.h:

src/platform/log.h:

src/platform/promtext.h:
