#!/bin/sh
# Compile into build/ (needs a JDK and Debian's libjeromq-java and libmsgpack-java).
set -eu
cd "$(dirname "$0")"
mkdir -p build
# javac with only the quick JIT compiler and the serial collector: a third less CPU for a
# build this small
javac -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC -nowarn -d build -cp /usr/share/java/jeromq.jar:/usr/share/java/msgpack-core.jar Bot.java
