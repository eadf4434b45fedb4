#define ENAV_GIT_REV "b25b28af5f3e"
