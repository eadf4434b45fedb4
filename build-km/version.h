#define ENAV_GIT_REV "8f5d6781fe66"
