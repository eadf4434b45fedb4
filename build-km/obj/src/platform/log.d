build-km/obj/src/platform/log.o: src/platform/log.c src/platform/log.h

src/platform/log.h:
