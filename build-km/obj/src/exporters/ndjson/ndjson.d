build-km/obj/src/exporters/ndjson/ndjson.o: src/exporters/ndjson/ndjson.c \
  src/exporters/ndjson/ndjson.h src/runtime/host.h src/config/config.h \
  src/platform/log.h src/platform/promtext.h src/model/signal.h \
  include/enav/abi.h src/model/cgroup_path.h src/model/l7_op.h \
  src/model/protocols.h src/probe/features.h src/platform/json.h \
  src/exporters/ndjson/ndjson_limit.h src/platform/clock.h \
  src/platform/numfmt.h src/runtime/export_worker.h src/discovery/k8s.h \
  src/features/network/dns.h

src/exporters/ndjson/ndjson.h:

src/runtime/host.h:

src/config/config.h:

src/platform/log.h:

src/platform/promtext.h:

src/model/signal.h:

include/enav/abi.h:

src/model/cgroup_path.h:

src/model/l7_op.h:

src/model/protocols.h:

src/probe/features.h:

src/platform/json.h:

src/exporters/ndjson/ndjson_limit.h:

src/platform/clock.h:

src/platform/numfmt.h:

src/runtime/export_worker.h:

src/discovery/k8s.h:

src/features/network/dns.h:
