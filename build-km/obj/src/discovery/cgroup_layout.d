build-km/obj/src/discovery/cgroup_layout.o: src/discovery/cgroup_layout.c \
  src/discovery/cgroup_layout.h src/probe/features.h src/config/config.h \
  src/platform/log.h

src/discovery/cgroup_layout.h:

src/probe/features.h:

src/config/config.h:

src/platform/log.h:
