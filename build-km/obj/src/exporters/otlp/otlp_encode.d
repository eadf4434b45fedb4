build-km/obj/src/exporters/otlp/otlp_encode.o: \
  src/exporters/otlp/otlp_encode.c src/exporters/otlp/otlp_encode.h \
  src/platform/protobuf.h src/exporters/otlp/otlp_common.h

src/exporters/otlp/otlp_encode.h:

src/platform/protobuf.h:

src/exporters/otlp/otlp_common.h:
