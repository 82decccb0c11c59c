// A word count run by kafkatest.StartStreamsApp as a Kafka Streams
// application with group.protocol=streams (KIP-1071): subtopology 0 reads
// the input topic and repartitions by word, subtopology 1 counts into an
// in-memory store (so a changelog topic, and no RocksDB) and writes the
// counts to the output topic.
//
// Arguments: bootstrap application.id input output state.dir [paused].
// "paused" joins the group and takes its tasks without processing a record
// (nor committing). It prints "STATE <state>" on each change and "CLOSED"
// once closed, which it does when its standard input ends.
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

public class WordCountApp {
    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
        p.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
        p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        StreamsBuilder b = new StreamsBuilder();
        b.<String, String>stream(args[2])
            .selectKey((k, v) -> v)
            .groupByKey(Grouped.as("by-word"))
            .count(Materialized.as(Stores.inMemoryKeyValueStore("counts")))
            .toStream()
            .to(args[3], Produced.with(Serdes.String(), Serdes.Long()));
        KafkaStreams streams = new KafkaStreams(b.build(), p);
        streams.setStateListener((now, before) -> {
            System.out.println("STATE " + now);
            System.out.flush();
        });
        streams.setUncaughtExceptionHandler(e -> {
            System.out.println("UNCAUGHT " + e);
            e.printStackTrace(System.out);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        if (args.length > 5 && args[5].equals("paused")) {
            streams.pause();
        }
        streams.start();
        while (System.in.read() >= 0) {
        }
        streams.close();
        System.out.println("CLOSED");
        System.out.flush();
    }
}
