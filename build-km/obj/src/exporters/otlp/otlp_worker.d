build-km/obj/src/exporters/otlp/otlp_worker.o: \
  src/exporters/otlp/otlp_worker.c src/exporters/otlp/otlp_worker.h \
  src/platform/protobuf.h src/platform/clock.h src/platform/log.h \
  src/platform/promtext.h src/runtime/export_worker.h \
  src/exporters/otlp/otlp_encode.h

src/exporters/otlp/otlp_worker.h:

src/platform/protobuf.h:

src/platform/clock.h:

src/platform/log.h:

src/platform/promtext.h:

src/runtime/export_worker.h:

src/exporters/otlp/otlp_encode.h:
