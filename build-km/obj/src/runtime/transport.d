build-km/obj/src/runtime/transport.o: src/runtime/transport.c \
  src/runtime/transport.h src/config/config.h src/platform/log.h

src/runtime/transport.h:

src/config/config.h:

src/platform/log.h:
