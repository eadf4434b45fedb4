build-km/obj/src/platform/u64map.o: src/platform/u64map.c \
  src/platform/u64map.h

src/platform/u64map.h:
