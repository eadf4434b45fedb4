build-km/obj/src/platform/tracefs.o: src/platform/tracefs.c \
  src/platform/tracefs.h src/platform/log.h

src/platform/tracefs.h:

src/platform/log.h:
