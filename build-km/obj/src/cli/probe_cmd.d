build-km/obj/src/cli/probe_cmd.o: src/cli/probe_cmd.c src/platform/json.h \
  src/probe/privileges.h src/config/config.h src/platform/log.h \
  src/probe/features.h

src/platform/json.h:

src/probe/privileges.h:

src/config/config.h:

src/platform/log.h:

src/probe/features.h:
