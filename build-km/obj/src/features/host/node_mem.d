build-km/obj/src/features/host/node_mem.o: src/features/host/node_mem.c \
  src/features/host/node_priv.h src/platform/parse.h \
  src/platform/promtext.h src/features/host/host.h src/config/config.h \
  src/platform/log.h

src/features/host/node_priv.h:

src/platform/parse.h:

src/platform/promtext.h:

src/features/host/host.h:

src/config/config.h:

src/platform/log.h:
