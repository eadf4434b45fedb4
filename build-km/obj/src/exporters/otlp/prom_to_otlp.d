build-km/obj/src/exporters/otlp/prom_to_otlp.o: \
  src/exporters/otlp/prom_to_otlp.c src/exporters/otlp/prom_to_otlp.h \
  src/platform/protobuf.h src/exporters/otlp/otlp_encode.h

src/exporters/otlp/prom_to_otlp.h:

src/platform/protobuf.h:

src/exporters/otlp/otlp_encode.h:
