build-km/obj/src/discovery/selectors.o: src/discovery/selectors.c \
  src/discovery/selectors.h src/config/config.h src/platform/log.h \
  src/discovery/k8s.h src/platform/promtext.h src/model/cgroup_path.h

src/discovery/selectors.h:

src/config/config.h:

src/platform/log.h:

src/discovery/k8s.h:

src/platform/promtext.h:

src/model/cgroup_path.h:
