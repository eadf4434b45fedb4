build-km/obj/src/platform/bcache.o: src/platform/bcache.c \
  src/platform/bcache.h

src/platform/bcache.h:
