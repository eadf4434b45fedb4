build-km/obj/src/config/config_yaml.o: src/config/config_yaml.c \
  src/config/config_priv.h src/config/config.h src/platform/log.h

src/config/config_priv.h:

src/config/config.h:

src/platform/log.h:
