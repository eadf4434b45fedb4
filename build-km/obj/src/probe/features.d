build-km/obj/src/probe/features.o: src/probe/features.c \
  src/probe/features.h src/config/config.h src/platform/log.h

src/probe/features.h:

src/config/config.h:

src/platform/log.h:
