build-km/obj/src/exporters/otlp/otlp_profiles.o: \
  src/exporters/otlp/otlp_profiles.c src/exporters/otlp/otlp_encode.h \
  src/platform/protobuf.h src/exporters/otlp/otlp_common.h \
  src/model/pprof.h src/platform/u64map.h

src/exporters/otlp/otlp_encode.h:

src/platform/protobuf.h:

src/exporters/otlp/otlp_common.h:

src/model/pprof.h:

src/platform/u64map.h:
