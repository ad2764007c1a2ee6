from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('sim', '0002_engine_lease'),
    ]

    operations = [
        migrations.CreateModel(
            name='EngineHost',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('holder', models.CharField(max_length=200, unique=True)),
                ('renewed', models.DateTimeField()),
            ],
        ),
    ]
