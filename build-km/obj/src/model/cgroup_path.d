build-km/obj/src/model/cgroup_path.o: src/model/cgroup_path.c \
  src/model/cgroup_path.h

src/model/cgroup_path.h:
