build-km/obj/src/config/config.o: src/config/config.c src/config/config.h \
  src/platform/log.h src/model/protocols.h src/config/config_priv.h

src/config/config.h:

src/platform/log.h:

src/model/protocols.h:

src/config/config_priv.h:
