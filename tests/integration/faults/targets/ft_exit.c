/*
 * ft_exit - exit with the status given: ft_exit CODE.
 */
#include <stdlib.h>

int main(int argc, char **argv)
{
	return argc > 1 ? (int)strtol(argv[1], NULL, 10) : 1;
}
