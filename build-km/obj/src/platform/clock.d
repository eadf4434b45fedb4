build-km/obj/src/platform/clock.o: src/platform/clock.c \
  src/platform/clock.h

src/platform/clock.h:
