package dev.ratelimit.kotlin

import dev.ratelimit.RateLimitExceededException
import dev.ratelimit.RateLimited
import dev.ratelimit.rules.RateLimitRule
import dev.ratelimit.rules.flow.RateLimitObserver
import dev.ratelimit.testsupport.RedisTestServer
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import io.lettuce.core.RedisClient
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.springframework.boot.SpringBootConfiguration
import org.springframework.boot.WebApplicationType
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.context.ConfigurableApplicationContext
import org.springframework.context.annotation.Import
import java.util.UUID
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

/**
 * `@RateLimited` on Kotlin `suspend` functions and on functions returning `Flow`, in a Kotlin application on the
 * starter with a real Redis: a suspend function is decided without blocking its caller's thread and its refusal is
 * thrown as `RateLimitExceededException`; SpEL keys read its parameters; a fallback may be a suspend function; each
 * collection of a `Flow` is one call.
 */
class RateLimitedCoroutinesTests {

    companion object {

        private lateinit var context: ConfigurableApplicationContext

        @JvmStatic
        @BeforeAll
        fun start() {
            context = SpringApplicationBuilder(Application::class.java)
                .web(WebApplicationType.NONE)
                .properties(mapOf("spring.data.redis.url" to RedisTestServer.shared().url(),
                    "ratelimit.key-prefix" to "kotlin-" + UUID.randomUUID().toString().substring(0, 8),
                    "ratelimit.timeout" to "5s"))
                .run()
        }

        @JvmStatic
        @AfterAll
        fun stop() {
            context.close()
        }

    }

    private val sms get() = context.getBean(SmsService::class.java)

    @Test
    fun aSuspendFunctionIsChargedPerCallAndItsRefusalIsThrown(): Unit = runBlocking {
        val service = sms
        val before = service.sent.get()
        assertThat(service.send("+34600000001", "one")).isEqualTo("sent one")
        assertThat(service.send("+34600000001", "two")).isEqualTo("sent two")
        val refused = runCatching { service.send("+34600000001", "three") }.exceptionOrNull()
        assertThat(refused).isInstanceOf(RateLimitExceededException::class.java)
        assertThat((refused as RateLimitExceededException).rule).isEqualTo("sms")
        assertThat(refused.retryAfter.seconds).isBetween(1L, 3600L)
        assertThat(service.sent.get() - before).isEqualTo(2)
        // the key is the SpEL #phone: another number has its own budget
        assertThat(service.send("+34600000002", "one")).isEqualTo("sent one")
    }

    @Test
    fun manyConcurrentCoroutinesGetExactlyTheLimit(): Unit = runBlocking {
        val service = sms
        val phone = "+34600000100"
        val results = coroutineScope {
            (1..20).map { i -> async(CoroutineName("sender-$i")) { runCatching { service.send(phone, "m$i") } } }.awaitAll()
        }
        assertThat(results.count { it.isSuccess }).isEqualTo(2)
        assertThat(results.mapNotNull { it.exceptionOrNull() }).hasSize(18)
            .allSatisfy { assertThat(it).isInstanceOf(RateLimitExceededException::class.java) }
    }

    @Test
    fun suspendCallsWaitForTheirPermitsWithMaxWaitInSuccessiveWindowsHoldingNoThread(): Unit = runBlocking {
        val service = sms
        val phone = "+34600000200"
        val decisions = context.getBean(DecisionCounter::class.java)
        // nine coroutines on one thread against three a second
        val results = Executors.newSingleThreadExecutor().asCoroutineDispatcher().use { one ->
            withContext(one) {
                val calls = (1..9).map { i -> async { service.sendPatiently(phone, "p$i") } }
                // runs on the same thread once a call was refused for now: a wait that held the thread would keep it
                // from running until a later window had let more calls in
                val grantedWhileOthersWait = async {
                    while (service.patientTimes.size <= 3
                        && !(service.patientTimes.size == 3 && decisions.of("sms-patient") >= 4)) {
                        delay(5)
                    }
                    service.patientTimes.size
                }.await()
                assertThat(grantedWhileOthersWait).isEqualTo(3)
                calls.awaitAll()
            }
        }
        assertThat(results).hasSize(9).allSatisfy { assertThat(it).startsWith("sent p") }
        assertThat(dev.ratelimit.testsupport.Waiters.perWindow(service.patientTimes)).`as`("calls per window")
            .allSatisfy { assertThat(it).isLessThanOrEqualTo(3) }
            .hasSizeLessThanOrEqualTo(4)
    }

    @Test
    fun aSuspendFallbackAnswersTheRefusal(): Unit = runBlocking {
        val service = sms
        assertThat(service.sendOrQueue("+34600000200", "one")).isEqualTo("sent one")
        assertThat(service.sendOrQueue("+34600000200", "two")).startsWith("queued two, retry in ")
    }

    @Test
    fun eachCollectionOfAFlowIsOneCall(): Unit = runBlocking {
        val service = sms
        val flow = service.inbox("alice")
        assertThat(flow.toList()).containsExactly("m1", "m2", "m3")
        assertThat(flow.toList()).containsExactly("m1", "m2", "m3")
        // the limit is 2 collections: the third is refused when it is collected, not when the flow is made
        assertThatExceptionOfType(RateLimitExceededException::class.java).isThrownBy { runBlocking { flow.toList() } }
        assertThat(service.inboxReads.get()).isEqualTo(2)
    }

    @Test
    fun theCallersThreadIsFreeWhileRedisDecides(): Unit = runBlocking {
        val service = sms
        val decisions = context.getBean(DecisionCounter::class.java)
        // Redis answers no client for 2 s: a decision that blocked its caller's thread would hold the one thread below
        RedisClient.create(RedisTestServer.shared().url()).use { client ->
            client.connect().use { connection -> connection.sync().clientPause(2_000) }
        }
        Executors.newSingleThreadExecutor().asCoroutineDispatcher().use { oneThread ->
            withContext(oneThread) {
                val call = async { service.start("+34600000300") }
                // runs on the same thread once the call above has suspended, before Redis could decide it
                val decidedMeanwhile = async { decisions.of("start") }.await()
                assertThat(decidedMeanwhile).isZero()
                assertThat(call.await()).isEqualTo("started")
            }
        }
        assertThat(decisions.of("start")).isEqualTo(1)
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(SmsService::class, DecisionCounter::class)
    open class Application

    /** Counts the decisions of each rule, as they are made: no Redis call, so it answers while Redis is paused. */
    open class DecisionCounter : RateLimitObserver {

        private val decisions = ConcurrentHashMap<String, AtomicInteger>()

        override fun onDecision(rule: RateLimitRule, outcome: RateLimitObserver.Outcome, nanos: Long) {
            decisions.computeIfAbsent(rule.name()) { AtomicInteger() }.incrementAndGet()
        }

        fun of(rule: String): Int = decisions[rule]?.get() ?: 0

    }

    open class SmsService {

        open val sent = AtomicInteger()

        open val inboxReads = AtomicInteger()

        @RateLimited(name = "sms", limit = 2, window = "1h", key = "#phone")
        open suspend fun send(phone: String, text: String): String {
            delay(1)
            sent.incrementAndGet()
            return "sent $text"
        }

        open val patientTimes = java.util.concurrent.ConcurrentLinkedQueue<Long>()

        @RateLimited(name = "sms-patient", limit = 3, window = "1s", key = "#phone", maxWait = "10s")
        open suspend fun sendPatiently(phone: String, text: String): String {
            patientTimes.add(System.currentTimeMillis())
            return "sent $text"
        }

        @RateLimited(name = "sms-or-queue", limit = 1, window = "1h", key = "#phone", fallbackMethod = "queue")
        open suspend fun sendOrQueue(phone: String, text: String): String {
            delay(1)
            return "sent $text"
        }

        open suspend fun queue(phone: String, text: String, refused: RateLimitExceededException): String {
            delay(1)
            return "queued $text, retry in ${refused.retryAfter.seconds} s"
        }

        @RateLimited(name = "start", limit = 10, window = "1h", key = "#phone")
        open suspend fun start(phone: String): String {
            delay(1)
            return "started"
        }

        @RateLimited(name = "inbox", limit = 2, window = "1h", key = "#user")
        open fun inbox(user: String): Flow<String> = flow {
            inboxReads.incrementAndGet()
            emit("m1")
            emit("m2")
            emit("m3")
        }

    }

}
