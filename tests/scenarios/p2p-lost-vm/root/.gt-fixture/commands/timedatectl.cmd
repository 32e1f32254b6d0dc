timedatectl show -p NTP -p NTPSynchronized
