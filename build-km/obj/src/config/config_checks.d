build-km/obj/src/config/config_checks.o: src/config/config_checks.c \
  src/config/config_priv.h src/config/config.h src/platform/log.h \
  src/config/config_rules.h

src/config/config_priv.h:

src/config/config.h:

src/platform/log.h:

src/config/config_rules.h:
