build-km/obj/src/platform/proc_lines.o: src/platform/proc_lines.c \
  src/platform/proc_lines.h src/platform/parse.h

src/platform/proc_lines.h:

src/platform/parse.h:
