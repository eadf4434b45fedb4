build-km/obj/src/probe/privileges.o: src/probe/privileges.c \
  src/probe/privileges.h src/config/config.h src/platform/log.h

src/probe/privileges.h:

src/config/config.h:

src/platform/log.h:
