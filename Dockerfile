# The stunwatch image: every component (`stunwatch process`, `api`, `collect vcenter`, ...) is a subcommand.
# Multi-stage: Maven builds the shaded jar, and the runtime stage is a JRE running as an unprivileged user.
FROM maven:3.9.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml ./
COPY model model
COPY embedded-broker embedded-broker
COPY test-support test-support
COPY collectors collectors
COPY stream-processor stream-processor
COPY api api
COPY launcher launcher
# the benchmarks are not built into the image; Maven needs only their module's pom to read the build
COPY benchmarks/pom.xml benchmarks/pom.xml
RUN mvn -B -q -DskipTests package -pl launcher -am

FROM eclipse-temurin:17.0.13_11-jre
RUN groupadd --system --gid 10001 stunwatch \
    && useradd --system --uid 10001 --gid stunwatch --home-dir /var/lib/stunwatch --shell /usr/sbin/nologin stunwatch \
    && mkdir -p /var/lib/stunwatch /opt/stunwatch \
    && chown stunwatch:stunwatch /var/lib/stunwatch
COPY --from=build /src/launcher/target/stunwatch.jar /opt/stunwatch/stunwatch.jar
USER 10001:10001
WORKDIR /var/lib/stunwatch
# State (Kafka Streams stores, collector buffers) lives under the working directory: mount a volume there.
VOLUME ["/var/lib/stunwatch"]
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", "/opt/stunwatch/stunwatch.jar"]
CMD ["--help"]
