build-km/obj/src/features/profiling/elf_symtab.o: \
  src/features/profiling/elf_symtab.c \
  src/features/profiling/symbolize_priv.h src/platform/proc_lines.h

src/features/profiling/symbolize_priv.h:

src/platform/proc_lines.h:
