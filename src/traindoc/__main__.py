from traindoc.cli import main

main()
