build-km/obj/src/features/host/node.o: src/features/host/node.c \
  src/platform/parse.h src/features/host/node_priv.h \
  src/platform/promtext.h src/features/host/host.h src/config/config.h \
  src/platform/log.h

src/platform/parse.h:

src/features/host/node_priv.h:

src/platform/promtext.h:

src/features/host/host.h:

src/config/config.h:

src/platform/log.h:
