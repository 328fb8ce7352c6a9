"""PoolEntry.seen_at: the waiting socket's last sign of life; Pool.last_wave_at: when its latest wave ran
(lobby.pools, docs/lobby.md "Pairing")."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("lobby", "0002_default_pools")]
    operations = [
        migrations.AddField(
            model_name="pool", name="last_wave_at",
            field=models.DateTimeField(blank=True, editable=False, null=True, verbose_name="latest wave"),
        ),
        migrations.AddField(
            model_name="poolentry", name="seen_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="socket last seen"),
        ),
    ]
