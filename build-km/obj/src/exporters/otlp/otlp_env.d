build-km/obj/src/exporters/otlp/otlp_env.o: src/exporters/otlp/otlp_env.c \
  src/exporters/otlp/otlp_env.h src/exporters/otlp/otlp_encode.h \
  src/platform/protobuf.h src/platform/parse.h

src/exporters/otlp/otlp_env.h:

src/exporters/otlp/otlp_encode.h:

src/platform/protobuf.h:

src/platform/parse.h:
