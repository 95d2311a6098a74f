package uy.truco.client;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A class or method for the JVM only (Java 17): it may use APIs Android lacks at the Kotlin SDK's minSdk 24, such as
 * {@code java.time}. Everything else in this jar is checked against Android API 24's signature at build time
 * (animal-sniffer, clients/java/pom.xml): the errors, commands, cards, commits, proofs and versions-seen helpers the
 * Kotlin/Android SDK shares. The blocking and future clients and their sessions are the JVM's.
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR})
public @interface JvmOnly {}
