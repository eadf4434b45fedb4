build-km/obj/src/runtime/export_worker.o: src/runtime/export_worker.c \
  src/runtime/export_worker.h src/platform/clock.h src/platform/log.h

src/runtime/export_worker.h:

src/platform/clock.h:

src/platform/log.h:
