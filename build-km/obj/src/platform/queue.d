build-km/obj/src/platform/queue.o: src/platform/queue.c \
  src/platform/queue.h src/platform/clock.h

src/platform/queue.h:

src/platform/clock.h:
